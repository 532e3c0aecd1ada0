// Removes a directory and everything in it using only async-signal-safe system calls
// (open, getdents64, unlinkat, close), so that the signal handlers of ExitCleanup.h and
// the normal exit path remove a run's temporary folder with the same code.
#ifndef PT2C_COMPILER_DRIVER_REMOVETREE_H_
#define PT2C_COMPILER_DRIVER_REMOVETREE_H_

namespace pt2c {

// Never follows symbolic links (a link inside the tree is removed, not its target) and
// allocates nothing. Returns true when `path` is gone afterwards (or was never there).
bool removeTree(const char *path);

} // namespace pt2c

#endif // PT2C_COMPILER_DRIVER_REMOVETREE_H_
