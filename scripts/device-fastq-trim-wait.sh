#!/usr/bin/env bash
# Issue 17 (run 29): the GPU host waits (SEQFUSE_GPU_WAIT unset, block,
# yield, spin) against each other; scripts/device-fastq-trim-variants.sh at
# its default variants, kept under this name for the command run 29 recorded.
exec bash "$(dirname "$0")/device-fastq-trim-variants.sh" "$@"
