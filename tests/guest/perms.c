// SPDX-License-Identifier: GPL-2.0
/*
 * Permissions: as uid/gid 65534 with no supplementary groups, reading and
 * writing the control files is refused, and the module can be neither
 * loaded nor unloaded. Checked twice: with debugfs' own 0700 root, and
 * with the root opened to 0755 so that only thpnuma's file modes guard.
 */
#include "test_util.h"
#include <grp.h>
#include "kselftest.h"

#define NOBODY	65534

static const char *const files[] = { "policy", "zone_reclaim", "scope",
	"reset", "stats", "version", "node0/thp_local", "node1/alloc_ns" };
#define NR_FILES	(sizeof(files) / sizeof(files[0]))

/* What the unprivileged child saw, sent back through a pipe. */
struct outcome {
	int read_err[NR_FILES], write_err[NR_FILES];
	int finit_err, init_err, delete_err, uid;
};

static void drop_privileges(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		_exit(3);
}

static int try_open(const char *name, int flags)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), THPNUMA_DEBUGFS "/%s", name);
	fd = open(path, flags);
	if (fd < 0)
		return errno;
	/* Opened: a write must still fail, else this is a hole. */
	if (flags == O_WRONLY && write(fd, "kernel", 6) < 0) {
		close(fd);
		return errno;
	}
	close(fd);
	return 0;
}

static void unprivileged(struct outcome *o, const void *image, size_t size)
{
	int fd;

	drop_privileges();
	o->uid = getuid();
	for (size_t i = 0; i < NR_FILES; i++) {
		o->read_err[i] = try_open(files[i], O_RDONLY);
		o->write_err[i] = try_open(files[i], O_WRONLY);
	}
	/* finit_module() and init_module() from an fd opened by nobody. */
	fd = open(THPNUMA_KO, O_RDONLY);
	o->finit_err = fd < 0 ? -errno :
		(syscall(SYS_finit_module, fd, "", 0) ? errno : 0);
	o->init_err = syscall(SYS_init_module, image, size, "") ? errno : 0;
	o->delete_err = syscall(SYS_delete_module, "thpnuma", O_NONBLOCK) ? errno : 0;
}

static int run_unprivileged(struct outcome *o, const void *image, size_t size)
{
	int pipefd[2], status;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		unprivileged(o, image, size);
		_exit(write(pipefd[1], o, sizeof(*o)) == sizeof(*o) ? 0 : 1);
	}
	close(pipefd[1]);
	if (read(pipefd[0], o, sizeof(*o)) != sizeof(*o))
		o->uid = -1;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int refused(int err)
{
	return err == EACCES || err == EPERM;
}

static void *read_whole(const char *path, size_t *size)
{
	static char image[16 << 20];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	*size = 0;
	if (fd < 0)
		return NULL;
	while ((n = read(fd, image + *size, sizeof(image) - *size)) > 0)
		*size += n;
	close(fd);
	return image;
}

static void state(char *buf, size_t size)
{
	char a[128] = "", b[16] = "", c[64] = "";

	read_file(THPNUMA_DEBUGFS "/policy", a, sizeof(a));
	read_file(THPNUMA_DEBUGFS "/zone_reclaim", b, sizeof(b));
	read_file(THPNUMA_DEBUGFS "/scope", c, sizeof(c));
	snprintf(buf, size, "%s%s%s", a, b, c);
}

static void pass(const char *label, const void *image, size_t size)
{
	char before[256], after[256];
	struct outcome o;
	bool ran;

	state(before, sizeof(before));
	ran = run_unprivileged(&o, image, size) == 0 && o.uid == NOBODY;
	ksft_test_result(ran, "%s: child runs as uid %d\n", label, NOBODY);
	if (!ran)
		return;
	for (size_t i = 0; i < NR_FILES; i++) {
		ksft_test_result(refused(o.read_err[i]), "%s: read of %s refused (%s)\n", label,
		       files[i], o.read_err[i] ? strerror(o.read_err[i]) : "allowed");
		ksft_test_result(refused(o.write_err[i]), "%s: write to %s refused (%s)\n", label,
		       files[i], o.write_err[i] ? strerror(o.write_err[i]) : "allowed");
	}
	ksft_test_result(o.finit_err == EPERM, "%s: finit_module refused with EPERM (%s)\n", label,
	       o.finit_err > 0 ? strerror(o.finit_err) : o.finit_err ? "open failed" : "allowed");
	ksft_test_result(o.init_err == EPERM, "%s: init_module refused with EPERM (%s)\n", label,
	       o.init_err ? strerror(o.init_err) : "allowed");
	ksft_test_result(o.delete_err == EPERM && module_loaded(),
	       "%s: delete_module refused with EPERM, module still loaded (%s)\n", label,
	       o.delete_err ? strerror(o.delete_err) : "allowed");
	state(after, sizeof(after));
	ksft_test_result(!strcmp(before, after) && before[0], "%s: settings unchanged\n", label);
}

int main(void)
{
	struct stat root;
	struct outcome o;
	size_t size;
	void *image;
	int ret;

	ksft_print_header();
	ksft_set_plan(2 * (1 + 2 * NR_FILES + 4) + 5);
	image = read_whole(THPNUMA_KO, &size);
	if (module_loaded())
		module_unload();
	run_unprivileged(&o, image, size);
	ksft_test_result(o.uid == NOBODY && o.finit_err == EPERM && o.init_err == EPERM,
	       "module absent: finit_module and init_module refused as nobody (%s, %s)\n",
	       strerror(o.finit_err), strerror(o.init_err));
	ksft_test_result(!module_loaded(), "module absent: still not loaded\n");
	ret = module_load("policy=strict-local");
	ksft_test_result(ret == 0, "module loads as root\n");
	if (ret)
		ksft_exit_fail();
	stat("/sys/kernel/debug", &root);
	pass("debugfs 0700", image, size);
	ksft_test_result(chmod("/sys/kernel/debug", 0755) == 0, "debugfs root opened to 0755\n");
	pass("debugfs 0755", image, size);
	chmod("/sys/kernel/debug", root.st_mode & 07777);
	ksft_test_result(module_unload() == 0, "module unloads as root\n");
	ksft_finished();
}
