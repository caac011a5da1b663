#!/bin/sh
# "ci" when CI is set (warnings are errors), "dev" otherwise.
if [ -n "${CI:-}" ]; then echo ci; else echo dev; fi
