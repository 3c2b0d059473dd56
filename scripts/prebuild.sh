#!/usr/bin/env bash
# Build the bot kits, the deploy checker and the front (arena-front) in the background while the
# rest of the suite runs, at the lowest CPU and I/O priority, so that the tests that need them (run
# last: tests/conftest.py) find them built. `make test` (from before the virtual environment and the
# static checks) and `make pytest` start it and stop it when the tests end.
#
# Each build holds its folder's build lock (flock on .build.lock), which the tests' own builds take
# too (tests/buildlock.py): a test waits for a build under way instead of racing it, then runs its
# incremental build, which finds nothing to do, or reports whatever failed here. Failures are not
# reported here: the tests report them.
set -u
cd "$(dirname "$0")/.."
renice -n 19 -p $$ > /dev/null
# make pytest starts this in a session of its own (setsid): with autogroups, the kernel weighs that
# session against the tests' as a whole, whatever the nice value inside it, so the session is niced too.
echo 19 > /proc/self/autogroup 2> /dev/null || true
ionice -c 3 -p $$ 2> /dev/null || true
for kit in cpp go java rust typescript; do
    flock "clients/$kit/.build.lock" make -C "clients/$kit" build > /dev/null 2>&1 || true
done
tool=deploy/tools/deploycheck
(cd "$tool" && flock .build.lock go build -o bin/deploycheck . > /dev/null 2>&1) || true
(flock front/.build.lock make front > /dev/null 2>&1) || true
