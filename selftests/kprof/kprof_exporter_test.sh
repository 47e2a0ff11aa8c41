#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kprofctl exporter against a real Prometheus (Debian's prometheus
# package): the exporter serves the module's health on 127.0.0.1, promtool
# checks its exposition, and a Prometheus server bound to 127.0.0.1
# scrapes it every second while a streaming session samples a busy
# loop; PromQL through Prometheus' HTTP API must see the target up and
# kprof_samples_total increase.  Prints KTAP.

set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/kprof_lib.sh"
kprofctl=${KPROFCTL:-$here/../../ctl/kprofctl}
tmp=$(mktemp -d /tmp/kprof-exporter.XXXXXX)
port=19464
pport=19090
pids=
trap 'for p in $pids; do kill -KILL $p 2>/dev/null; done; "$kprofctl" stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT

echo "TAP version 13"
kt_load
kt_mounts
"$kprofctl" stop >/dev/null 2>&1

# fetch URL [FILE]: the body, or false
fetch() {
	python3 - "$1" <<'EOF' >"${2:-/dev/null}" 2>/dev/null
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
    sys.stdout.write(r.read().decode())
EOF
}

# query EXPR: the value of a one-sample PromQL result, or "" (none yet)
query() {
	python3 - "http://127.0.0.1:$pport/api/v1/query" "$1" <<'EOF' 2>/dev/null
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "?" + urllib.parse.urlencode({"query": sys.argv[2]})
with urllib.request.urlopen(url, timeout=5) as r:
    res = json.load(r)["data"]["result"]
if res:
    print(res[0]["value"][1])
EOF
}

# query_is EXPR VALUE: the query's value is VALUE ('': any value)
query_is() {
	local v

	v=$(query "$1")
	if [ -z "$2" ]; then [ -n "$v" ]; else [ "$v" = "$2" ]; fi
}

"$kprofctl" exporter --listen "127.0.0.1:$port" >"$tmp/exporter.err" 2>&1 &
epid=$!
pids="$pids $epid"
check "exporter serves /metrics on 127.0.0.1:$port" wait_for 30 fetch "http://127.0.0.1:$port/metrics"
fetch "http://127.0.0.1:$port/metrics" "$tmp/idle.txt"
check "no session running: kprof_up 1, the module's state" \
	bash -c "grep -qx 'kprof_up 1' '$tmp/idle.txt' &&
		 grep -qx 'kprof_session_state{state=\"running\"} 0' '$tmp/idle.txt'"
check "promtool check metrics passes on that exposition" \
	bash -c "promtool check metrics < '$tmp/idle.txt'"

# a streaming session on a busy CPU (aggregated samples are kprof_aggregated_samples_total)
"$kprofctl" start -a -F 999 -o "$tmp/kprof.data" >"$tmp/start.err" 2>&1
sh -c 'while :; do :; done' &
busy=$!
pids="$pids $busy"
fetch "http://127.0.0.1:$port/metrics" "$tmp/running.txt"
check "running: kprof_samples_total, losses by cause, per-CPU samples" \
	bash -c "grep -q '^kprof_samples_total [0-9]' '$tmp/running.txt' &&
		 grep -q '^kprof_lost_samples_total{cause=\"buffer_full\"} ' '$tmp/running.txt' &&
		 grep -q '^kprof_cpu_samples_total{cpu=\"0\"} ' '$tmp/running.txt'"
check "promtool check metrics passes on the running session's exposition" \
	bash -c "promtool check metrics < '$tmp/running.txt'"
sed 's/^/# /' "$tmp/start.err"

cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: kprof
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$tmp/prometheus.log" 2>&1 &
ppid=$!
pids="$pids $ppid"
t0=$(date +%s)
if wait_for 180 fetch "http://127.0.0.1:$pport/-/ready"; then
	echo "# prometheus ready after $(($(date +%s) - t0)) s"
	check "Prometheus scrapes the exporter: up{job=\"kprof\"} == 1" \
		wait_for 60 query_is 'up{job="kprof"}' 1
	wait_for 60 query_is kprof_samples_total ''
	v1=$(query kprof_samples_total)
	sleep 4
	v2=$(query kprof_samples_total)
	echo "# kprof_samples_total through PromQL: $v1, then $v2"
	check "PromQL: kprof_samples_total increases while the session samples" \
		awk -v a="${v1:-0}" -v b="${v2:-0}" 'BEGIN { exit !(a > 0 && b > a) }'
	abi=$("$kprofctl" version | sed -n 's/^kprof\.ko .* (ABI \([0-9.]*\)).*/\1/p')
	check "PromQL: kprof_module_info names the module's ABI (${abi:-none}, as kprofctl version says)" \
		query_is "kprof_module_info{abi=\"${abi:-none}\"}" 1
else
	not_ok "Prometheus started (see below)"
	tail -n 5 "$tmp/prometheus.log" | sed 's/^/#   /'
fi
kill -TERM "$ppid"
wait "$ppid" 2>/dev/null
kill -KILL "$busy"
wait "$busy" 2>/dev/null
"$kprofctl" stop >/dev/null 2>&1

# a counting session ('kprofctl stat') beside it: its counts per event and
# CPU, its state and time (ABI 1.8), and stat's derived metrics
"$kprofctl" stat -a -e cpu-clock,task-clock -- sleep 3 >"$tmp/stat.out" 2>&1 &
spid=$!
pids="$pids $spid"
counting_seen() {
	fetch "http://127.0.0.1:$port/metrics" "$tmp/count.txt" &&
		grep -q '^kprof_stat_session_running{session="[0-9]*"} 1' "$tmp/count.txt"
}
wait_for 30 counting_seen
check "a counting session: kprof_stat_events_total per event and CPU, running, its time" \
	bash -c "grep -q '^kprof_stat_events_total{event=\"cpu-clock\",cpu=\"0\",session=\"[0-9]*\"} [0-9]' '$tmp/count.txt' &&
		 grep -q '^kprof_stat_session_running{session=\"[0-9]*\"} 1\$' '$tmp/count.txt' &&
		 grep -q '^kprof_stat_elapsed_seconds{session=\"[0-9]*\"} [0-9]' '$tmp/count.txt' &&
		 grep -q '^kprof_stat_metric{event=\"task-clock\",cpu=\"0\",session=\"[0-9]*\",metric=\"CPUs utilized\"}' '$tmp/count.txt'"
grep '^kprof_stat_' "$tmp/count.txt" | head -n 8 | sed 's/^/# /'
check "promtool check metrics passes with the counting session's metrics" \
	bash -c "promtool check metrics < '$tmp/count.txt'"
wait "$spid"
sed 's/^/# stat: /' "$tmp/stat.out" | head -n 12
kill -TERM "$epid"
wait "$epid"
check "exporter exits 0 on SIGTERM" [ $? = 0 ]
sed 's/^/# exporter: /' "$tmp/exporter.err"

"$kprofctl" exporter --listen 127.0.0.1:99999 >/dev/null 2>"$tmp/bad.err"
code=$?
check "a bad --listen: one line naming it, exit 2" \
	bash -c "[ $code = 2 ] && [ \$(wc -l <'$tmp/bad.err') = 1 ] &&
		 grep -q \"bad --listen '127.0.0.1:99999'\" '$tmp/bad.err'"

dmesg | grep -E 'BUG:|WARNING:|Oops|sleeping function called from invalid context' &&
	not_ok "kernel log clean" || ok "kernel log clean"
echo "1..$n"
[ "$failed" = 0 ]
