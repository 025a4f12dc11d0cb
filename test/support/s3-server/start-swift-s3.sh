#!/usr/bin/env bash
# Start (or stop) a throw-away, single-node OpenStack Swift cluster that speaks
# the S3 protocol (s3api middleware + tempauth, real SigV4 checks, multipart).
#
# Usage:
#   start-swift-s3.sh [start] <workdir> [port]   start; prints one JSON line:
#       {"endpoint":"http://127.0.0.1:PORT","accessKey":"...","secretKey":"...","region":"us-east-1"}
#     port omitted or 0 => a free port is chosen.
#   start-swift-s3.sh stop <workdir>             stop the servers of <workdir>
#
# Needs only the Debian package python3-swift (DEBIAN_FRONTEND=noninteractive
# apt-get install -y --no-install-recommends python3-swift); the swift,
# swift-proxy/-object/-container/-account packages may be installed too but are
# not used (no /usr/bin/swift-* and no /etc/swift file is read).
#
# Work dir layout (everything lives there; several copies can run at once with
# different work dirs, each with its own rings, ports and data):
#   etc/   swift.conf (random hash, kept across restarts), *-server.conf,
#          *.ring.gz + *.builder, swift_s3_launcher.py
#   srv/d1 object/container/account data (needs user xattrs: ext4, xfs,
#          btrfs, tmpfs on Linux >= 6.6)
#   log/   account|container|object|proxy.log
#   *.pid  account, container, object, proxy (and watchdog) process ids
# Start-up takes ~2-3 s and ~250 MB RSS (4 python processes, 1 CPU-s each).
# Data survives stop/start of the same work dir; rm -rf it to throw it away.
#
# Environment (all optional):
#   SWIFT_S3_ACCESS_KEY     default "islet:tester" (tempauth needs "account:user";
#                           account and user: letters, digits, '-')
#   SWIFT_S3_SECRET_KEY     default "testing-secret" (no spaces, quotes, backslashes)
#   SWIFT_S3_REGION         default "us-east-1" (clients must sign with this region)
#   SWIFT_S3_PYTHON         default /usr/bin/python3 (the Debian python that has swift)
#   SWIFT_S3_START_TIMEOUT  seconds to wait for readiness, default 30
#   SWIFT_S3_LOG_LEVEL      DEBUG|INFO|WARNING|ERROR, default INFO (logs in <workdir>/log)
#   SWIFT_S3_WATCH_PID      if set, the servers are stopped once that process exits
set -euo pipefail

PROG=start-swift-s3
PY=${SWIFT_S3_PYTHON:-/usr/bin/python3}
ACCESS_KEY=${SWIFT_S3_ACCESS_KEY:-islet:tester}
SECRET_KEY=${SWIFT_S3_SECRET_KEY:-testing-secret}
REGION=${SWIFT_S3_REGION:-us-east-1}
START_TIMEOUT=${SWIFT_S3_START_TIMEOUT:-30}
LOG_LEVEL=${SWIFT_S3_LOG_LEVEL:-INFO}
SERVERS="account container object proxy"

die() { echo "$PROG: error: $*" >&2; exit 1; }
info() { echo "$PROG: $*" >&2; }

usage() {
  cat >&2 <<EOF
usage: $0 [start] <workdir> [port]
       $0 stop <workdir>
EOF
  exit 2
}

# ---------------------------------------------------------------- python bits
# Runs one swift server (written to <workdir>/etc/swift_s3_launcher.py at each
# start). Unlike /usr/bin/swift-*-server it reads swift.conf from
# the work dir (swift hard-codes /etc/swift/swift.conf otherwise), logs to
# stderr only (no syslog) and needs only python3-swift.
# The proxy also builds the one-device, one-replica rings first (saves a
# separate python start-up), from the backend ports given as extra arguments.
# argv: <etc dir> <account|container|object|proxy> <conf file> [a c o ports]
LAUNCHER_PY=$(cat <<'PYEOF'
import logging, sys
etc, name, conf = sys.argv[1:4]
from swift.common import utils
class _NoSyslog(logging.NullHandler):
    def __init__(self, *args, **kwargs):
        logging.NullHandler.__init__(self)
utils.ThreadSafeSysLogHandler = _NoSyslog
utils.set_swift_dir(etc)
from swift.common import constraints, storage_policy
storage_policy.reload_storage_policies()
constraints.reload_constraints()
if name == 'proxy':
    from swift.common.ring import RingBuilder
    for ring, port in zip(('account', 'container', 'object'), map(int, sys.argv[4:7])):
        b = RingBuilder(6, 1, 0)  # 2^6 partitions, 1 replica, min_part_hours 0
        b.add_dev({'id': 0, 'region': 1, 'zone': 1, 'ip': '127.0.0.1',
                   'port': port, 'replication_ip': '127.0.0.1',
                   'replication_port': port, 'device': 'd1', 'weight': 100.0,
                   'meta': ''})
        b.rebalance(seed=1)
        b.save('%s/%s.builder' % (etc, ring))
        b.get_ring().save('%s/%s.ring.gz' % (etc, ring))
    # In-process stand-in for memcached (tempauth refuses to work without a
    # cache; a shared memcached would leak cached state between copies).
    import json, threading, time, types
    class InMemoryCache(object):
        def __init__(self):
            self._d, self._lock = {}, threading.Lock()
        def _live(self, key):
            item = self._d.get(key)
            if item and item[0] and item[0] < time.time():
                del self._d[key]
                return None
            return item
        def set(self, key, value, serialize=True, time=0, min_compress_len=0,
                raise_on_error=False):
            exp = (_now() + time) if time and time > 0 else 0
            with self._lock:
                self._d[key] = (exp, json.dumps(value) if serialize else value)
        def get(self, key, raise_on_error=False):
            with self._lock:
                item = self._live(key)
            if item is None:
                return None
            return json.loads(item[1]) if isinstance(item[1], str) else item[1]
        def incr(self, key, delta=1, time=0):
            with self._lock:
                item = self._live(key)
                val = max(0, (int(json.loads(item[1])) if item else 0) + int(delta))
                exp = item[0] if item else ((_now() + time) if time and time > 0 else 0)
                self._d[key] = (exp, json.dumps(val))
                return val
        def decr(self, key, delta=1, time=0):
            return self.incr(key, -delta, time)
        def delete(self, key, server_key=None):
            with self._lock:
                self._d.pop(key, None)
        def set_multi(self, mapping, server_key, serialize=True, time=0,
                      min_compress_len=0):
            for k, v in mapping.items():
                self.set(k, v, serialize=serialize, time=time)
        def get_multi(self, keys, server_key):
            return [self.get(k) for k in keys]
    _now = time.time
    _cache = InMemoryCache()
    def filter_factory(global_conf, **local_conf):
        def make(app):
            def middleware(env, start_response):
                env['swift.cache'] = _cache
                return app(env, start_response)
            return middleware
        return make
    mod = types.ModuleType('swift_s3_memcache')
    mod.filter_factory = filter_factory
    sys.modules['swift_s3_memcache'] = mod
from swift.common import wsgi
import eventlet
def _listen(*args, **kwargs):
    # eventlet sets SO_REUSEPORT by default: a second copy on the same port
    # would then silently share it. Fail with EADDRINUSE instead.
    kwargs['reuse_port'] = False
    return eventlet.listen(*args, **kwargs)
wsgi.listen = _listen
kwargs = {'verbose': True}
if name == 'object':
    from swift.obj import server as obj_server
    kwargs['global_conf_callback'] = obj_server.global_conf_callback
sys.exit(wsgi.run_wsgi(conf, name + '-server', **kwargs))
PYEOF
)

# Checks that swift is installed and the data dir supports user xattrs, then
# prints N free TCP ports on 127.0.0.1 (outside the ephemeral port range, so
# they do not collide with outgoing connections). Imports nothing heavy.
# argv: <data dir> N [port that must be free]
# exit 10: swift missing, 11: no xattrs, 12: fixed port busy, 13: no free ports
PREP_PY=$(cat <<'PYEOF'
import importlib.util, os, random, socket, sys
spec = importlib.util.find_spec('swift')
need = ['common/middleware/s3api/s3api.py', 'common/middleware/tempauth.py',
        'common/ring/builder.py', 'proxy/server.py', 'obj/server.py',
        'container/server.py', 'account/server.py']
if (spec is None or not spec.submodule_search_locations or
        not all(os.path.exists(os.path.join(spec.submodule_search_locations[0], f))
                for f in need) or
        not all(importlib.util.find_spec(m) for m in ('xattr', 'eventlet', 'paste'))):
    sys.exit(10)
import xattr
probe = os.path.join(sys.argv[1], '.xattr-probe')
try:
    open(probe, 'w').close()
    xattr.setxattr(probe, 'user.swift.probe', b'x' * 512)
    assert xattr.getxattr(probe, 'user.swift.probe') == b'x' * 512
except (OSError, AssertionError) as e:
    print(e, file=sys.stderr)
    sys.exit(11)
finally:
    try:
        os.unlink(probe)
    except OSError:
        pass
n = int(sys.argv[2])
held = []
def grab(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # a port whose old connections linger in TIME_WAIT is free to listen on again (a restart)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(('127.0.0.1', port))
    except OSError:
        s.close()
        return None
    held.append(s)
    return port
if len(sys.argv) > 3 and grab(int(sys.argv[3])) is None:
    sys.exit(12)
out = []
rng = random.SystemRandom()
for _ in range(2000):
    if len(out) == n:
        break
    p = grab(rng.randrange(20000, 32000))
    if p is not None:
        out.append(p)
else:
    sys.exit(13)
print(' '.join(map(str, out)))
PYEOF
)

# Waits until each server process listens on its own port and a SigV4-signed
# ListBuckets returns 200.
# argv: deadline(epoch s) proxy_port "a c o ports" "a c o proxy pids" access secret region
# exit 0 ready, 3 a server died, 4 timeout/other
WAIT_PY=$(cat <<'PYEOF'
import datetime, hashlib, hmac, http.client, os, socket, sys, time
deadline = float(sys.argv[1]); pport = int(sys.argv[2])
ports = [int(p) for p in sys.argv[3].split()] + [pport]
pids = [int(p) for p in sys.argv[4].split()]
access, secret, region = sys.argv[5:8]
def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False
def listen_inodes():
    # {port: set(socket inodes)} of listening TCP sockets on 127.0.0.1 / 0.0.0.0
    found = {}
    with open('/proc/net/tcp') as f:
        for line in f.readlines()[1:]:
            col = line.split()
            ip, port = col[1].split(':')
            if col[3] == '0A' and ip in ('0100007F', '00000000'):
                found.setdefault(int(port, 16), set()).add(col[9])
    return found
def owns(pid, inodes):
    # True if process pid holds one of the socket inodes (the port is really
    # served by our process, not by another copy or program)
    try:
        fds = os.listdir('/proc/%d/fd' % pid)
    except OSError:
        return False
    for fd in fds:
        try:
            link = os.readlink('/proc/%d/fd/%s' % (pid, fd))
        except OSError:
            continue
        if link.startswith('socket:[') and link[8:-1] in inodes:
            return True
    return False
def signed_list_buckets():
    now = datetime.datetime.now(datetime.timezone.utc)
    amzdate, day = now.strftime('%Y%m%dT%H%M%SZ'), now.strftime('%Y%m%d')
    host = '127.0.0.1:%d' % pport
    payload = hashlib.sha256(b'').hexdigest()
    signed = 'host;x-amz-content-sha256;x-amz-date'
    creq = '\n'.join(['GET', '/', '', 'host:' + host,
                      'x-amz-content-sha256:' + payload, 'x-amz-date:' + amzdate,
                      '', signed, payload])
    scope = '%s/%s/s3/aws4_request' % (day, region)
    sts = '\n'.join(['AWS4-HMAC-SHA256', amzdate, scope,
                     hashlib.sha256(creq.encode()).hexdigest()])
    k = ('AWS4' + secret).encode()
    for part in (day, region, 's3', 'aws4_request'):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    auth = 'AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s' % (
        access, scope, signed, sig)
    c = http.client.HTTPConnection('127.0.0.1', pport, timeout=5)
    c.request('GET', '/', headers={'Host': host, 'x-amz-date': amzdate,
                                   'x-amz-content-sha256': payload,
                                   'Authorization': auth})
    r = c.getresponse(); body = r.read(); c.close()
    return r.status, body
last = 'servers not listening yet'
while time.time() < deadline:
    dead = [p for p in pids if not alive(p)]
    if dead:
        print('server process(es) %s exited during start-up' % dead, file=sys.stderr)
        sys.exit(3)
    inodes = listen_inodes()
    if all(owns(pid, inodes.get(port, ())) for pid, port in zip(pids, ports)):
        try:
            status, body = signed_list_buckets()
            if status == 200:
                sys.exit(0)
            last = 'ListBuckets answered %d: %s' % (status, body[:300])
            if status in (400, 403):  # config problem, not a start-up race
                print(last, file=sys.stderr); sys.exit(4)
        except (OSError, http.client.HTTPException) as e:
            last = 'ListBuckets failed: %r' % (e,)
    time.sleep(0.1)
print('timed out: ' + last, file=sys.stderr)
sys.exit(4)
PYEOF
)

# ---------------------------------------------------------------- helpers
INSTALL_HINT="install it: DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-swift"

# runs PREP_PY, turning its exit codes into messages. argv: datadir n [port]
prep() {
  local rc=0
  "$PY" -c "$PREP_PY" "$@" || rc=$?
  case $rc in
    0) return 0 ;;
    10) die "OpenStack Swift (with s3api) is not importable by $PY; $INSTALL_HINT (or set SWIFT_S3_PYTHON)" ;;
    11) die "the data folder $1 does not support user xattrs (swift needs them). Use a work dir on ext4/xfs/btrfs, or tmpfs on Linux >= 6.6" ;;
    12) die "port $3 on 127.0.0.1 is already in use" ;;
    13) die "could not find free ports" ;;
    *) die "start-up check failed ($PY exit code $rc)" ;;
  esac
}

abs_dir() { mkdir -p "$1" && (cd "$1" && pwd -P); }

# pid is alive and belongs to this work dir (guards against pid reuse)
our_pid() {
  local pid=$1 work=$2
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ -r "/proc/$pid/cmdline" ] || return 1
  local cmd
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ "$cmd" == *"$work/"* || "$cmd" == *"$work "* ]] || return 1
  ! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null
}

stop_servers() {
  local work=$1 pids=() f pid i
  for f in "$work"/*.pid; do
    [ -e "$f" ] || continue
    pid=$(cat "$f" 2>/dev/null || true)
    if [ "$pid" != "$$" ] && our_pid "$pid" "$work"; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
    rm -f "$f"
  done
  for i in $(seq 1 50); do
    local left=()
    for pid in ${pids[@]+"${pids[@]}"}; do our_pid "$pid" "$work" && left+=("$pid"); done
    [ ${#left[@]} -eq 0 ] && return 0
    pids=("${left[@]}")
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}

write_configs() {
  local work=$1 etc=$2 pport=$3 aport=$4 cport=$5 oport=$6
  local user acct uname
  user=$(id -un)
  acct=${ACCESS_KEY%%:*}; uname=${ACCESS_KEY#*:}

  # keep the hash prefix/suffix across restarts, or the stored data is lost
  local hprefix hsuffix
  hprefix=$(sed -n 's/^swift_hash_path_prefix = //p' "$etc/swift.conf" 2>/dev/null || true)
  hsuffix=$(sed -n 's/^swift_hash_path_suffix = //p' "$etc/swift.conf" 2>/dev/null || true)
  [ -n "$hprefix" ] || hprefix=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
  [ -n "$hsuffix" ] || hsuffix=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
  cat >"$etc/swift.conf" <<EOF
[swift-hash]
swift_hash_path_prefix = $hprefix
swift_hash_path_suffix = $hsuffix

[storage-policy:0]
name = Policy-0
default = yes

[swift-constraints]
# swift's defaults (value <= 256 bytes, 4 KiB in all) are below S3's 2 KiB of
# user metadata, and s3api answers 500 when they are exceeded
max_meta_name_length = 1024
max_meta_value_length = 2048
max_meta_count = 200
max_meta_overall_size = 8192
EOF

  local common
  common="bind_ip = 127.0.0.1
workers = 0
user = $user
swift_dir = $etc
devices = $work/srv
mount_check = false
disable_fallocate = true
fallocate_reserve = 0
# swift retries a busy port for 30 s by default; fail fast and pick other ports
bind_timeout = 2
log_level = $LOG_LEVEL"

  local s
  for s in account container object; do
    local port
    case $s in account) port=$aport ;; container) port=$cport ;; object) port=$oport ;; esac
    cat >"$etc/$s-server.conf" <<EOF
[DEFAULT]
bind_port = $port
$common
log_name = $s-server

[pipeline:main]
pipeline = $s-server

[app:$s-server]
use = egg:swift#$s
EOF
  done

  # s3api must sit before the auth filter (tempauth); slo must be between s3api
  # and proxy-server for multipart uploads. The proxy adds any other required
  # filters itself.
  cat >"$etc/proxy-server.conf" <<EOF
[DEFAULT]
bind_port = $pport
$common
log_name = proxy-server

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats bulk s3api tempauth copy slo dlo versioned_writes proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
node_timeout = 30
recoverable_node_timeout = 30

[filter:s3api]
use = egg:swift#s3api
location = $REGION
s3_acl = false
dns_compliant_bucket_names = true
max_upload_part_num = 10000
allowable_clock_skew = 900

[filter:tempauth]
use = egg:swift#tempauth
user_${acct}_${uname} = $SECRET_KEY .admin

[filter:cache]
# no memcached: in-process dict cache defined in the launcher above
paste.filter_factory = swift_s3_memcache:filter_factory

[filter:slo]
use = egg:swift#slo
max_manifest_segments = 10000

[filter:dlo]
use = egg:swift#dlo

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:listing_formats]
use = egg:swift#listing_formats

[filter:bulk]
use = egg:swift#bulk

[filter:copy]
use = egg:swift#copy

[filter:versioned_writes]
use = egg:swift#versioned_writes
EOF
}

# lines of a log file after its last "=== start" marker
last_attempt_log() {
  awk '/^=== start /{buf=""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$1" 2>/dev/null
}

start_cluster() {
  local work=$1 want_port=$2
  local etc=$work/etc log=$work/log
  mkdir -p "$etc" "$log" "$work/srv/d1"

  local f
  for f in "$work"/*.pid; do
    [ -e "$f" ] || continue
    if our_pid "$(cat "$f" 2>/dev/null)" "$work"; then
      die "a server of $work is already running ($(basename "$f")); run: $0 stop $work"
    fi
    rm -f "$f"
  done

  local attempt rc ports pport aport cport oport
  for attempt in 1 2 3; do
    if [ "$want_port" = 0 ]; then
      ports=$(prep "$work/srv/d1" 4) || exit 1
      read -r pport aport cport oport <<<"$ports"
    else
      ports=$(prep "$work/srv/d1" 3 "$want_port") || exit 1
      pport=$want_port
      read -r aport cport oport <<<"$ports"
    fi
    write_configs "$work" "$etc" "$pport" "$aport" "$cport" "$oport"
    printf '%s\n' "$LAUNCHER_PY" >"$etc/swift_s3_launcher.py"

    local s pids=""
    for s in $SERVERS; do
      echo "=== start $(date -u +%FT%TZ) attempt $attempt" >>"$log/$s.log"
      # setsid: own session, so a Ctrl-C in the caller's terminal doesn't hit it
      setsid "$PY" "$etc/swift_s3_launcher.py" "$etc" "$s" "$etc/$s-server.conf" \
        $([ "$s" = proxy ] && echo "$aport $cport $oport") \
        </dev/null >>"$log/$s.log" 2>&1 &
      echo $! >"$work/$s.pid"
      pids="$pids $!"
    done

    rc=0
    # background + wait: a trapped signal interrupts `wait` at once
    "$PY" -c "$WAIT_PY" "$(( $(date +%s) + START_TIMEOUT ))" "$pport" \
      "$aport $cport $oport" "$pids" "$ACCESS_KEY" "$SECRET_KEY" "$REGION" &
    WAIT_PID=$!
    wait $WAIT_PID || rc=$?
    WAIT_PID=
    if [ $rc -eq 0 ]; then
      PPORT=$pport
      return 0
    fi
    # a port grabbed by someone else between picking and binding: retry
    local recent=""
    for s in $SERVERS; do recent+=$(last_attempt_log "$log/$s.log"); done
    if [ $rc -eq 3 ] && [ $attempt -lt 3 ] &&
        [[ "$recent" =~ Could\ not\ bind\ to|Address\ already\ in\ use ]]; then
      info "port clash, retrying with other ports"
      stop_servers "$work"
      continue
    fi
    stop_servers "$work"
    for s in $SERVERS; do
      echo "--- tail of $log/$s.log" >&2
      tail -n 15 "$log/$s.log" >&2 || true
    done
    die "swift did not start (see logs in $log)"
  done
  die "swift did not start after 3 attempts (see logs in $log)"
}

start_watchdog() {
  local work=$1 watch=$2 self
  self=$(cd "$(dirname "$0")" && pwd -P)/$(basename "$0")
  setsid bash -c 'while kill -0 "$1" 2>/dev/null && [ -e "$2/proxy.pid" ]; do sleep 1; done
                  [ -e "$2/proxy.pid" ] && exec "$3" stop "$2"; exit 0' \
    swift-s3-watchdog "$watch" "$work" "$self" </dev/null >/dev/null 2>&1 &
  echo $! >"$work/watchdog.pid"
}

# ---------------------------------------------------------------- main
cmd=start
case ${1:-} in
  start|stop) cmd=$1; shift ;;
  -h|--help|"") usage ;;
esac

if [ "$cmd" = stop ]; then
  [ $# -eq 1 ] || usage
  [ -d "$1" ] || die "no such work dir: $1"
  work=$(cd "$1" && pwd -P)
  stop_servers "$work"
  exit 0
fi

[ $# -ge 1 ] && [ $# -le 2 ] || usage
port=${2:-0}
[[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -le 65535 ] || die "bad port: $port"
[[ "$ACCESS_KEY" =~ ^[A-Za-z0-9-]+:[A-Za-z0-9-]+$ ]] \
  || die "SWIFT_S3_ACCESS_KEY must look like account:user (letters, digits, '-')"
[[ "$SECRET_KEY" =~ ^[^[:space:]\"\\]+$ ]] || die "SWIFT_S3_SECRET_KEY must not contain spaces, quotes or backslashes"
[[ "$REGION" =~ ^[a-z0-9-]+$ ]] || die "bad SWIFT_S3_REGION: $REGION"

command -v "$PY" >/dev/null 2>&1 || die "$PY not found; $INSTALL_HINT"
work=$(abs_dir "$1") || die "cannot create work dir $1"
# interrupted while starting: do not leave half a cluster behind
WAIT_PID=
trap 'trap - INT TERM HUP; [ -n "$WAIT_PID" ] && kill "$WAIT_PID" 2>/dev/null; stop_servers "$work"; echo "$PROG: interrupted" >&2; exit 130' INT TERM HUP
PPORT=
start_cluster "$work" "$port"
trap - INT TERM HUP
if [ -n "${SWIFT_S3_WATCH_PID:-}" ]; then start_watchdog "$work" "$SWIFT_S3_WATCH_PID"; fi
printf '{"endpoint":"http://127.0.0.1:%s","accessKey":"%s","secretKey":"%s","region":"%s"}\n' \
  "$PPORT" "$ACCESS_KEY" "$SECRET_KEY" "$REGION"
