// Finds the processes working for a pt2c run by the marker in their environment,
// PT2C_RUN_DIR=<the run's folder> (TempDir.h sets it; children inherit it), and kills
// them. This reaches what the exporter's process group does not: a process model.py
// started in a session of its own, or the group's members after pt2c was SIGKILLed.
// Async-signal-safe (no allocation, system calls only), so ExitCleanup.h's signal
// handlers, a run's normal end and StaleRuns.h's sweep share it.
#ifndef PT2C_COMPILER_DRIVER_RUNPROCESSES_H_
#define PT2C_COMPILER_DRIVER_RUNPROCESSES_H_

namespace pt2c {

constexpr const char *kRunDirMarker = "PT2C_RUN_DIR";

// SIGKILL to every process of this user, other than pt2c itself, whose environment holds
// PT2C_RUN_DIR=`runDir`.
void killProcessesOfRun(const char *runDir);

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_RUNPROCESSES_H_
