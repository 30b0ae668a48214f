// SPDX-License-Identifier: GPL-2.0
/*
 * What stat and hist share: their options (--node, --json, --prometheus,
 * --output), and writing a report to stdout or, atomically, to a file.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "stats.h"
#include "thpnumactl.h"

/* A node number: decimal, below the kernel's node limit. */
static int parse_node(const char *text, int *node)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' ||
	    v >= STATS_MAX_NODES)
		return -EINVAL;
	*node = (int)v;
	return 0;
}

/* -1 to go on, else the exit status. */
static int parse_report_options(const struct command *cmd, int argc,
				char *argv[], struct report_options *ro)
{
	enum { OPT_JSON = 256, OPT_PROMETHEUS };
	static const struct option options[] = {
		{ "node", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "prometheus", no_argument, NULL, OPT_PROMETHEUS },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	*ro = (struct report_options){ .node = -1, .format = REPORT_TEXT };
	optind = 0;
	while ((c = getopt_long(argc, argv, ":n:o:h", options, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_node(optarg, &ro->node))
				return usage_error(cmd, "invalid node '%s'",
						   optarg);
			break;
		case OPT_JSON:
		case OPT_PROMETHEUS:
			if (ro->format != REPORT_TEXT)
				return usage_error(cmd,
						   "--json and --prometheus exclude each other");
			ro->format = c == OPT_JSON ? REPORT_JSON :
				     REPORT_PROMETHEUS;
			break;
		case 'o':
			if (!*optarg)
				return usage_error(cmd, "empty --output file name");
			ro->output = optarg;
			break;
		case 'h':
			show_help(cmd);
			return EXIT_OK;
		default:
			return option_error(cmd, c, argv);
		}
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);
	return -1;
}

/*
 * --output FILE: write a hidden temporary file in FILE's directory, then
 * rename it over FILE, so that a reader (node_exporter's textfile
 * collector reads *.prom) sees the old file or the new one, never half
 * of one. The temporary's name does not end in .prom.
 */
struct output {
	FILE *f;
	const char *path;
	char tmp[PATH_MAX];
};

static int output_open(struct output *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	int fd;

	o->path = path;
	if (slash)
		snprintf(o->tmp, sizeof(o->tmp), "%.*s/.%s.XXXXXX",
			 (int)(slash - path), path, slash + 1);
	else
		snprintf(o->tmp, sizeof(o->tmp), ".%s.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		error("cannot create a temporary file for %s: %s", path,
		      strerror(errno));
		return EXIT_FAIL;
	}
	/*
	 * mkstemp makes it 0600, a umask would decide otherwise: 0644, as
	 * the textfile collector runs as another user and reads it.
	 */
	o->f = fchmod(fd, 0644) ? NULL : fdopen(fd, "w");
	if (!o->f) {
		error("cannot write %s: %s", o->tmp, strerror(errno));
		close(fd);
		unlink(o->tmp);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Keep the file only if everything reached the disk; @ret: so far. */
static int output_close(struct output *o, int ret)
{
	int err = 0;

	if (fflush(o->f))
		err = errno;
	else if (ferror(o->f))
		err = EIO;
	else if (fsync(fileno(o->f)))
		err = errno;
	if (fclose(o->f) && !err)
		err = errno;
	if (!ret && !err && rename(o->tmp, o->path))
		err = errno;
	if (!ret && err) {
		error("cannot write %s: %s", o->path, strerror(err));
		ret = EXIT_FAIL;
	}
	if (ret)
		unlink(o->tmp);
	return ret;
}

static int write_report(const struct report_options *ro,
			const struct report_source *src, const void *data)
{
	struct output o = { .f = stdout };
	int ret;

	if (!ro->output)
		return src->write(stdout, ro, data);
	ret = output_open(&o, ro->output);
	if (ret)
		return ret;
	return output_close(&o, src->write(o.f, ro, data));
}

int run_report(const struct command *cmd, int argc, char *argv[],
	       const struct report_source *src, void *data)
{
	struct report_options ro;
	int ret;

	ret = parse_report_options(cmd, argc, argv, &ro);
	if (ret >= 0)
		return ret;
	if (ro.node >= 0 && !src->select_node)
		return usage_error(cmd, "--node does not apply: the rows are not per node");
	ret = ensure_module();
	if (ret)
		return ret;
	ret = src->read(data);
	if (ret)
		return ret;
	if (ro.node >= 0 && src->select_node(data, ro.node)) {
		error("node %d is not online", ro.node);
		ret = EXIT_FAIL;
	} else {
		/* Only now: a failed read leaves an existing FILE as it was. */
		ret = write_report(&ro, src, data);
	}
	src->free(data);
	return ret;
}
