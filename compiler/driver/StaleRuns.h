// Cleans up after pt2c runs that were SIGKILLed (or lost power) and so could not clean
// up themselves: their temporary folders (TempDir.h), the processes still working for
// them, and their temporary outputs beside a target (AtomicOutput.h).
#ifndef PT2C_COMPILER_DRIVER_STALERUNS_H_
#define PT2C_COMPILER_DRIVER_STALERUNS_H_

#include <string>

namespace pt2c {

// A run's folder is BASE/pt2c-<pid>-XXXXXX (TempDir.h).
constexpr const char *kRunDirPrefix = "pt2c-";

// Removes each of this user's run folders in `base` whose lock (TempDir.h) can be taken,
// unless it is under a minute old and its pid is alive (its owner may be between mkdtemp
// and flock), after killing the processes that carry its marker (RunProcesses.h: what
// the exporter started lives on after PR_SET_PDEATHSIG killed the exporter).
void sweepStaleRunDirs(const std::string &base);

// Removes TARGET.tmp-<pid>-* beside `target` owned by this user whose pid is not alive.
// The linker replaces the file, so no lock can live in it: the pid is what there is.
void sweepStaleOutputTemps(const std::string &target);

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_STALERUNS_H_
