#!/bin/sh
# Sends cover.out to the coverage dashboard.
DASHBOARD_TOKEN=cov_live_8f2a91c4d7e6b35a0c19
curl -sf -X POST -H "Authorization: Bearer $DASHBOARD_TOKEN" \
  --data-binary @cover.out https://coverage.example.com/api/upload
