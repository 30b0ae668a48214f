# The "N passed, N failed[, N skipped]" line every test part ends with;
# sourced by check.sh and host/run-tap.sh, the scripts that add them up.
# summary_counts: the numbers of the last such line on stdin, as
# "PASSED FAILED SKIPPED"; nothing if there is none.
summary_counts() {
	grep -E '^([a-z]+: )?[0-9]+ passed, [0-9]+ failed' | tail -n 1 |
		sed -E 's/^[a-z]+: //; s/[^0-9]+/ /g; s/^ +//'
}
