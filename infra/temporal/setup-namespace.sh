#!/bin/sh
# The `default` namespace and FotoPronta's custom search attributes (run by the `temporal-namespace`
# job of docker-compose.yml, image temporalio/admin-tools, once the server is healthy). Keep the list
# equal to activities.contracts.JOB_SEARCH_ATTRIBUTES (tests/test_compose.py checks it).
set -eu
ADDRESS="${TEMPORAL_ADDRESS:-temporal:7233}"
NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
until temporal operator cluster health --address "$ADDRESS"; do echo "waiting for Temporal…"; sleep 3; done
temporal operator namespace describe -n "$NAMESPACE" --address "$ADDRESS" >/dev/null 2>&1 \
  || temporal operator namespace create -n "$NAMESPACE" --retention 720h --address "$ADDRESS"
for name in UserEmail JobType JobStatus Preset PhotoName; do
  if temporal operator search-attribute list -n "$NAMESPACE" --address "$ADDRESS" | grep -qw "$name"; then
    echo "search attribute $name already registered"
  else
    temporal operator search-attribute create -n "$NAMESPACE" --address "$ADDRESS" --name "$name" --type Keyword
  fi
done
echo "namespace $NAMESPACE ready"
