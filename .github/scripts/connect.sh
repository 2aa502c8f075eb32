#!/usr/bin/env bash
# Connects a workflow job's later steps to its target, one of two ways:
#   SANDBOX=true  `bankops sandbox up` on the runner (how the workflows are tested; no secrets needed);
#   otherwise     the cluster named by the repository's (or the environment's) variables and secrets,
#                 exported to later steps through $GITHUB_ENV, the command-config written to a private file.
# Nothing secret is printed: passwords are masked (::add-mask::) before anything could echo them, and the
# command-config file is never shown.
set -euo pipefail

mask() { [ -n "$1" ] && echo "::add-mask::$1"; return 0; }

if [ "${SANDBOX:-false}" = "true" ]; then
  # The sandbox needs PostgreSQL's server binaries (GitHub's Ubuntu images have them; install them where missing).
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
    sudo apt-get update -qq && sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  bankops sandbox up
  # The sandbox's generated database password is a secret too, even on a throwaway runner.
  mask "$(eval "$(bankops sandbox env)"; echo "$DB_PASSWORD")"
  exit 0
fi

for name in KAFKA_BROKERS SCHEMA_REGISTRY_URL; do
  if [ -z "${!name:-}" ]; then
    echo "::error::the repository variable $name is not set (see docs/guide/workflows.md), or run with sandbox: true"
    exit 2
  fi
done

# Parts of secrets that could appear on their own: the password of USER:PASSWORD, and every password and JAAS
# config value of the command-config (GitHub masks a secret's whole value, not the pieces of a multi-line one).
mask "${DB_PASSWORD:-}"
[ -n "${SCHEMA_REGISTRY_USER_INFO:-}" ] && mask "${SCHEMA_REGISTRY_USER_INFO#*:}"
# Read as java.util.Properties reads a line: the key ends at the first '=', ':' or blank, and blanks around the
# separator are dropped, so `key=value`, `key: value` and `key value` all hide their value.
ltrim() { local s=$1; printf '%s' "${s#"${s%%[![:space:]]*}"}"; }
if [ -n "${KAFKA_COMMAND_CONFIG:-}" ]; then
  while IFS= read -r line; do
    line=$(ltrim "$line")
    case "$line" in ''|'#'*|'!'*) continue ;; esac
    key=${line%%[=:[:space:]]*}
    value=$(ltrim "${line:${#key}}")
    case "$value" in [=:]*) value=$(ltrim "${value:1}") ;; esac
    case "$key" in *password*|*jaas.config*) mask "$value" ;; esac
  done <<< "$KAFKA_COMMAND_CONFIG"
fi

{
  for name in KAFKA_BROKERS SCHEMA_REGISTRY_URL SCHEMA_REGISTRY_USER_INFO DB_URL DB_USER DB_PASSWORD; do
    value="${!name:-}"
    [ -z "$value" ] && continue
    case "$value" in *$'\n'*) echo "::error::$name must be one line" >&2; exit 2 ;; esac
    echo "$name=$value"
  done
  if [ -n "${KAFKA_COMMAND_CONFIG:-}" ]; then
    config="${RUNNER_TEMP:?}/bankops-command.properties"
    (umask 077 && printf '%s\n' "$KAFKA_COMMAND_CONFIG" > "$config")
    echo "BANKOPS_COMMAND_CONFIG=$config"
  fi
} >> "$GITHUB_ENV"
echo "connected to the target from variables and secrets (Kafka $KAFKA_BROKERS)"
