#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ss-watch.sh PORT [TAG]: the TCP sockets on PORT (either end, any state:
# the listen, the connection, its TIME-WAIT) as `ss -tin` shows them,
# with the time, each time that changed, five times a second until
# killed. TAG only names the process, for whoever stops it (interop.sh
# keeps this of both ends of a case, to show a connection that failed).
sel="( sport = :$1 or dport = :$1 )"
last=-
while :; do
	now=$(ss -Htin state all "$sel" 2>&1)
	if [ "$now" != "$last" ]; then
		date +%T.%N
		echo "${now:-(no socket)}"
		last=$now
	fi
	sleep 0.2
done
