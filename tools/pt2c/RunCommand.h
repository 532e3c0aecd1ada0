// `pt2c run MODEL.so --input x.npy ... [--method NAME] [--weights W] --output-dir DIR`: runs a
// compiled model on .npy inputs (`none`: an absent optional input) and writes one .npy per output
// of the graph they select, named <index>_<name>.npy (or <index>.npy).
#ifndef PT2C_TOOLS_PT2C_RUNCOMMAND_H_
#define PT2C_TOOLS_PT2C_RUNCOMMAND_H_

#include <string>
#include <vector>

namespace pt2c {

// Returns the process exit code; errors are printed to stderr. `weights`: the weights
// file of an --external-weights model ("": its default, model.so.weights).
int runModelOnNpyFiles(const std::string &library, const std::vector<std::string> &inputs,
                       const std::string &outputDir, const std::string &method = "",
                       const std::string &weights = "");

} // namespace pt2c

#endif // PT2C_TOOLS_PT2C_RUNCOMMAND_H_
