#!/bin/sh
echo "coverage is not supported in the offline pt2c workspace" >&2
exit 1
