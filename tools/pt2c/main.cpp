// pt2c: compile a PyTorch model ahead of time into one self-contained shared library.
//
//   pt2c model.py -o model.so                 export + compile
//   pt2c export model.py -o model.pt2c        trace the model into an artifact
//   pt2c compile model.pt2c -o model.so       compile an artifact
//   pt2c run model.so --input x.npy --output-dir out
#include <iostream>

#include "CLI/CLI.hpp"
#include "compiler/Passes.h"
#include "compiler/driver/ExitCleanup.h"
#include "compiler/driver/Pipeline.h"
#include "compiler/driver/Resources.h"
#include "compiler/driver/TempDir.h"
#include "tools/pt2c/BenchCommand.h"
#include "tools/pt2c/InspectCommand.h"
#include "tools/pt2c/ReportCommand.h"
#include "tools/pt2c/RunCommand.h"

namespace {

constexpr const char *kDescription =
    "pt2c compiles a PyTorch model ahead of time into one self-contained shared library.\n"
    "The library carries its kernels, weights and a small runtime behind a C ABI\n"
    "(runtime/include/pt2c/pt2c.h): no Python and no libtorch at run time.\n\n"
    "model.py must define `model` (an nn.Module, or a function returning one) and\n"
    "`example_inputs` (a tuple of tensors, or a function returning one).\n\n"
    "  pt2c model.py -o model.so              export and compile in one step\n"
    "  pt2c export model.py -o model.pt2c     trace the model into an artifact\n"
    "  pt2c compile model.pt2c -o model.so    compile an artifact\n"
    "  pt2c run model.so --input x.npy --output-dir out\n"
    "  pt2c report model.pt2c [--json]        what the export had to assume\n"
    "  pt2c inspect model.so [--svg OUT.svg]  what a model holds: signature, steps, sizes\n";

int reportError(llvm::Error err) {
  llvm::handleAllErrors(std::move(err), [](const llvm::ErrorInfoBase &e) {
    std::cerr << "pt2c: error: " << e.message() << "\n";
  });
  return 1;
}

void addCommonOptions(CLI::App *app, pt2c::PipelineOptions &o) {
  app->add_flag("-q,--quiet", o.quiet, "No progress lines");
}

void addCompileOptions(CLI::App *app, pt2c::PipelineOptions &o) {
  app->add_option("--target", o.target,
                  "Code generation target: cpu, cuda[:sm_80,sm_90,...] (NVIDIA GPUs; "
                  "cuda means cuda:sm_80,sm_90) or rocm[:gfx90a,gfx942,gfx1100,...] (AMD "
                  "GPUs; rocm means those three)")
      ->capture_default_str();
  app->add_option("--cpu", o.cpu,
                  "CPU the kernels are tuned for (an LLVM CPU name such as x86-64-v3, "
                  "or 'native' for this machine)")
      ->capture_default_str();
  app->add_option("--emit", o.emit, "Print one stage of the pipeline to stdout and stop")
      ->check(CLI::IsMember({"aten", "prim", "llvm"}));
  app->add_flag("!--no-fold-weights", o.foldWeights,
                "Compute weight-only math and batch norm at run time instead of folding it "
                "into derived weights at compile time (for debugging)");
  app->add_flag("--external-weights", o.externalWeights,
                "Keep the weights out of the .so, in OUTPUT.so.weights (read at create), "
                "with OUTPUT.so.weights.json, the recipe from which `python -m pt2c_exporter "
                "weights` remakes that file from model.py elsewhere (and .weights.derived, "
                "the bytes of folded weights, when there are any)");
  app->add_option("--weights-out", o.weightsOut,
                  "Where --external-weights writes the weights file (implies it; default "
                  "OUTPUT.so.weights; the runtime then needs the path, e.g. PT2C_WEIGHTS)");
}

void addExportOptions(CLI::App *app, pt2c::PipelineOptions &o) {
  app->add_option("--python", o.python,
                  "Python interpreter with torch for the export (default: $PT2C_PYTHON, "
                  "the project's environment, python3 on PATH, /usr/bin/python3)");
  app->add_flag("--strict", o.strict,
                "Fail the export, writing nothing, if the draft report has any finding");
  app->add_option("--export-timeout", o.exportTimeoutSeconds,
                  "Seconds the exporter (model.py) may run before it and every process it "
                  "started are stopped and pt2c fails; 0: no limit")
      ->capture_default_str();
}

// `pt2c model.py -o model.so`: the artifact lives in the run's temporary folder.
llvm::Error exportAndCompile(const pt2c::Resources &res, const pt2c::PipelineOptions &o,
                             const pt2c::RunTempDir &temp, const std::string &model,
                             const std::string &out) {
  std::string artifact = temp.file("model.pt2c");
  pt2c::PipelineOptions exportOptions = o;
  exportOptions.printReport = true; // the artifact is gone afterwards: show it all now
  if (auto err = pt2c::exportModel(res, exportOptions, model, artifact))
    return err;
  return pt2c::compileArtifact(res, o, artifact, out);
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{kDescription, "pt2c"};
  app.require_subcommand(0, 1);
  pt2c::PipelineOptions options;
  std::string model, output;
  app.add_option("model", model, "model.py to export and compile");
  app.add_option("-o,--output", output, "Output shared library (model.so)");
  addCommonOptions(&app, options);
  addCompileOptions(&app, options);
  addExportOptions(&app, options);

  CLI::App *exportCmd = app.add_subcommand("export", "Trace model.py into a .pt2c artifact");
  std::string exportModelPath, exportOut;
  exportCmd->add_option("model", exportModelPath, "model.py")->required();
  exportCmd->add_option("-o,--output", exportOut, "Output artifact (.pt2c)")->required();
  addExportOptions(exportCmd, options);
  addCommonOptions(exportCmd, options);

  CLI::App *compileCmd = app.add_subcommand("compile", "Compile a .pt2c artifact to a .so");
  std::string artifactPath, compileOut;
  compileCmd->add_option("artifact", artifactPath, "model.pt2c")
      ->required()
      ->check(CLI::ExistingFile);
  compileCmd->add_option("-o,--output", compileOut, "Output shared library");
  addCompileOptions(compileCmd, options);
  addCommonOptions(compileCmd, options);

  CLI::App *runCmd = app.add_subcommand("run", "Run a compiled model on .npy inputs");
  std::string library, outputDir, method, runWeights;
  std::vector<std::string> inputs;
  runCmd->add_option("library", library, "model.so")->required()->check(CLI::ExistingFile);
  runCmd->add_option("-i,--input", inputs,
                     "Input .npy file, one per model input, in order; `none`: absent");
  runCmd->add_option("--method", method,
                     "Method (or graph name) of a multi-graph model; default: its default");
  runCmd->add_option("--output-dir", outputDir, "Directory for the output .npy files")->required();
  runCmd->add_option("--weights", runWeights,
                     "Weights file of a model compiled with --external-weights (default: "
                     "$PT2C_WEIGHTS, else MODEL.so.weights)");

  CLI::App *benchCmd = app.add_subcommand("bench", "Time a compiled model's runs");
  pt2c::BenchOptions bench;
  benchCmd->add_option("library", bench.library, "model.so")->required()->check(CLI::ExistingFile);
  benchCmd->add_option("-i,--input", bench.inputs,
                       "Input .npy file, one per model input, in order (default: synthetic "
                       "inputs: seeded uniform [-1, 1) floats, zero integers)");
  benchCmd->add_option("--runs", bench.runs, "Timed runs (default 20)");
  benchCmd->add_option("--warmup", bench.warmup, "Untimed runs first (default 3)");
  benchCmd->add_option("--threads", bench.threads,
                       "CPU threads (default: $PT2C_NUM_THREADS, else the CPUs this process "
                       "may use)");
  benchCmd->add_option("--method", bench.method, "Method of a multi-graph model");
  benchCmd->add_option("--weights", bench.weights,
                       "Weights file of a model compiled with --external-weights");

  CLI::App *reportCmd = app.add_subcommand("report", "Print the draft report of a .pt2c artifact");
  std::string reportPath;
  bool reportJson = false;
  reportCmd->add_option("artifact", reportPath, "model.pt2c")->required()->check(CLI::ExistingFile);
  reportCmd->add_flag("--json", reportJson, "Print JSON instead of text");

  CLI::App *inspectCmd = app.add_subcommand(
      "inspect", "Describe a model.so (signature, dynamic dims, sizes, every plan step and the "
                 "library that runs it) or a model.pt2c (signature, ops with model.py lines)");
  std::string inspectPath, inspectSvg;
  inspectCmd->add_option("file", inspectPath, "model.so or model.pt2c")
      ->required()
      ->check(CLI::ExistingFile);
  inspectCmd->add_option("--svg", inspectSvg,
                         "Also draw a model.so's graph of plan steps into this SVG file");

  CLI11_PARSE(app, argc, argv);
  if (!options.weightsOut.empty())
    options.externalWeights = true;

  if (*runCmd)
    return pt2c::runModelOnNpyFiles(library, inputs, outputDir, method, runWeights);
  if (*reportCmd)
    return pt2c::printReport(reportPath, reportJson);
  if (*inspectCmd)
    return pt2c::inspectFile(inspectPath, inspectSvg);
  if (*benchCmd)
    return pt2c::benchModel(bench);

  pt2c::registerAllPasses();
  auto resources = pt2c::findResources(argv[0]);
  if (!resources)
    return reportError(resources.takeError());
  // From here on every exit path, interruptions included, removes what the run made.
  pt2c::exit_cleanup::install();
  auto temp = pt2c::RunTempDir::create();
  if (!temp)
    return reportError(temp.takeError());

  if (*exportCmd) {
    if (auto err = pt2c::exportModel(*resources, options, exportModelPath, exportOut))
      return reportError(std::move(err));
    return 0;
  }
  if (*compileCmd) {
    if (compileOut.empty() && options.emit.empty())
      return reportError(llvm::createStringError(llvm::inconvertibleErrorCode(),
                                                 "compile needs -o OUTPUT.so (or --emit)"));
    if (auto err = pt2c::compileArtifact(*resources, options, artifactPath, compileOut))
      return reportError(std::move(err));
    return 0;
  }
  if (model.empty()) {
    std::cerr << app.help();
    return 1;
  }
  if (output.empty() && options.emit.empty())
    return reportError(llvm::createStringError(llvm::inconvertibleErrorCode(),
                                               "missing -o OUTPUT.so (or --emit STAGE)"));
  if (auto err = exportAndCompile(*resources, options, **temp, model, output))
    return reportError(std::move(err));
  return 0;
}
