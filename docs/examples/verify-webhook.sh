#!/bin/sh
# Verifies a kycflow webhook delivery with openssl:
#   verify-webhook.sh SECRET "KYCFLOW_SIGNATURE_HEADER" BODY_FILE
# Exit 0 when one v1 signature matches and t is at most 5 minutes away.
set -eu
secret=$1 header=$2 body=$3
t=$(printf '%s' "$header" | tr ',' '\n' | sed -n 's/^ *t=//p')
[ -n "$t" ] || exit 1
now=$(date +%s)
[ $((now - t)) -le 300 ] && [ $((t - now)) -le 300 ] || exit 1
# HMAC-SHA256 of "<t>.<raw body>", keyed with the whole whsec_… secret.
want=$( { printf '%s.' "$t"; cat "$body"; } | openssl dgst -sha256 -hmac "$secret" | sed 's/^.*= *//')
for v1 in $(printf '%s' "$header" | tr ',' '\n' | sed -n 's/^ *v1=//p'); do
  [ "$v1" = "$want" ] && exit 0
done
exit 1
