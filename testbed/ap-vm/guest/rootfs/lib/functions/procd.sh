#!/bin/sh
# The AP VM's stand-in for OpenWrt's /lib/functions/procd.sh: an init script's procd_* calls write its service
# as /var/run/procd/services/<service>/<instance> files (one parameter a line, values separated by \037), which
# /opt/wislice/procd.py runs; a request file in /var/run/procd/req/ is removed once it has acted on them.
# shellcheck shell=dash

_PROCD_BASE="${PROCD_BASE:-/var/run/procd}"
_PROCD_US="$(printf '\037')"
_procd_seq=0

procd_lock() { :; }

# _procd_request SERVICE: ask the supervisor to act now and wait (at most 10 s) until it has.
_procd_request() {
	local req i=0
	_procd_seq=$((_procd_seq + 1))
	req="$_PROCD_BASE/req/$1.$$.$_procd_seq"
	mkdir -p "$_PROCD_BASE/req"
	: >"$req"
	while [ -e "$req" ] && [ "$i" -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ ! -e "$req" ] || { rm -f "$req"; echo "procd: the supervisor did not answer" >&2; return 1; }
}

procd_open_service() {
	_procd_service="$1"
	_procd_dir="$_PROCD_BASE/services/.$1.$$"
	_procd_n=0
	rm -rf "$_procd_dir"
	mkdir -p "$_procd_dir"
}

procd_close_service() {
	local final="$_PROCD_BASE/services/$_procd_service"
	rm -rf "$final"
	mv "$_procd_dir" "$final"
	_procd_request "$_procd_service"
}

procd_open_instance() {
	_procd_n=$((_procd_n + 1))
	_procd_instance="${1:-instance$_procd_n}"
	_procd_params=""
}

_procd_join() {
	local out="" arg first=1
	for arg in "$@"; do
		case "$arg" in *"
"*) echo "procd: a parameter value holds a line break" >&2; return 1 ;; esac
		if [ "$first" = 1 ]; then out="$arg"; first=0; else out="$out$_PROCD_US$arg"; fi
	done
	printf '%s' "$out"
}

procd_set_param() {
	local type="$1" v
	shift
	case "$type" in "" | *[!a-z_]*) echo "procd: bad parameter name '$type'" >&2; return 1 ;; esac
	v="$(_procd_join "$@")" || return 1
	case " $_procd_params " in *" $type "*) ;; *) _procd_params="$_procd_params $type" ;; esac
	eval "_procd_v_$type=\$v"
}

procd_append_param() {
	# shellcheck disable=SC2034  # old is read through eval
	local type="$1" v old
	shift
	case " $_procd_params " in
		*" $type "*)
			v="$(_procd_join "$@")" || return 1
			eval "old=\$_procd_v_$type"
			eval "_procd_v_$type=\"\$old\${_PROCD_US}\$v\"" ;;
		*) procd_set_param "$type" "$@" ;;
	esac
}

procd_close_instance() {
	local type v
	for type in $_procd_params; do
		eval "v=\$_procd_v_$type"
		printf '%s%s%s\n' "$type" "$_PROCD_US" "$v"
		unset "_procd_v_$type"
	done >"$_procd_dir/$_procd_instance"
	_procd_params=""
}

# Triggers and validation specs go to ubus on OpenWrt; the VM has no ubus events to trigger on.
procd_open_trigger() { :; }
procd_close_trigger() { :; }
procd_add_reload_trigger() { :; }
procd_add_interface_trigger() { :; }
procd_add_validation() { :; }
procd_open_data() { :; }
procd_close_data() { :; }

# procd_kill SERVICE [INSTANCE]: the service (or one instance) no longer declared, its processes stopped.
procd_kill() {
	if [ -n "$2" ]; then
		rm -f "$_PROCD_BASE/services/$1/$2"
	else
		rm -rf "$_PROCD_BASE/services/$1"
	fi
	_procd_request "$1"
}

# procd_running SERVICE [INSTANCE]: 0 when it (any instance) has a running process.
procd_running() {
	local f
	for f in "$_PROCD_BASE/pid/$1."${2:-*}; do
		[ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && return 0
	done
	return 1
}
