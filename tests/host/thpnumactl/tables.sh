# Sourced by the host tests that run thpnumactl on a fake tree. They set
# dbg (the fake debugfs directory) and nodes (the fake sysfs nodes
# directory, CONTROL_DIR/nodes) before calling these.
#
# The module's counter tables as debugfs and sysfs both show them: whole
# in debugfs, and in sysfs each node's rows under the header in
# nodes/nodeN (thpnumactl reads sysfs). Each file is replaced whole, by
# rename, as the module formats a file once per open.
# put_table FILE NAME: FILE, a well-formed table, in every node's NAME.
put_table() {
	header=$(head -n 1 "$1")
	for nid in $(awk 'NR > 1 { print $1 }' "$1" | sort -un); do
		[ -d "$nodes/node$nid" ] && continue
		mkdir -p "$nodes/node$nid"
		for t in stats hist orders; do
			head -n 1 "$dbg/$t" > "$nodes/node$nid/$t"
		done
	done
	for d in "$nodes"/node*; do
		{ printf '%s\n' "$header"
		  awk -v nid="${d##*/node}" 'NR > 1 && $1 == nid' "$1"
		} > "$d/$2.new" && mv "$d/$2.new" "$d/$2"
	done
	cp "$1" "$dbg/$2.new" && mv "$dbg/$2.new" "$dbg/$2"
}

# put_raw FILE NAME: FILE as it is in node 0's NAME, its first line in the
# other nodes': read back, the whole of FILE, however malformed.
put_raw() {
	for d in "$nodes"/node*; do
		if [ "$d" = "$nodes/node0" ]; then
			cp "$1" "$d/$2"
		else
			head -n 1 "$1" > "$d/$2"
		fi
	done
	cp "$1" "$dbg/$2"
}
