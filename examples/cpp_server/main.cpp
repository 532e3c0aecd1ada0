// cpp_server: one model, N worker threads answering requests from a queue, each through
// its own execution context (pt2c.h, "Execution contexts"): the weights exist once, a
// context adds only scratch memory and model state. No network: the requests are made
// here, and every answer is checked bit for bit against the same request run on the
// model alone, single-threaded, before the workers start.
//
//   cpp_server MODEL.so [--threads 8] [--requests 200] [--threads-per-run 1]
//
// Request r's inputs are deterministic (f32: sin(0.001 * i + 0.1 * r); integers and
// bools: (i + r) % 7 and its parity), so answers are comparable across runs and threads.
// Prints the resident memory (VmRSS) with the model alone (after its reference runs), with
// the N contexts created, and after serving (their scratch touched), and exits 1 on any
// mismatch or error.
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "pt2c/pt2c.hpp"

namespace {

// A request's tensors: one byte buffer per input or output, and their views.
struct Tensors {
  std::vector<std::vector<unsigned char>> bytes;
  std::vector<pt2c_tensor> views;
};

Tensors allocate(const std::vector<pt2c::TensorInfo> &infos) {
  Tensors t;
  for (const pt2c::TensorInfo &info : infos) {
    for (int64_t d : info.dims)
      if (d < 0)
        throw pt2c::Error(PT2C_ERROR_UNSUPPORTED, "cpp_server: dynamic sizes are not supported");
    t.bytes.emplace_back(static_cast<size_t>(info.num_elements()) * pt2c::dtype_size(info.dtype));
  }
  for (size_t i = 0; i < infos.size(); ++i)
    t.views.push_back(pt2c::tensor_view(t.bytes[i].data(), infos[i].dtype, infos[i].dims));
  return t;
}

void fill_request(const std::vector<pt2c::TensorInfo> &infos, int request, Tensors *t) {
  for (size_t k = 0; k < infos.size(); ++k) {
    int64_t n = infos[k].num_elements();
    unsigned char *p = t->bytes[k].data();
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = (i + request) % 7;
      switch (infos[k].dtype) {
      case PT2C_F32:
        reinterpret_cast<float *>(p)[i] = std::sin(0.001f * i + 0.1f * request);
        break;
      case PT2C_I64:
        reinterpret_cast<int64_t *>(p)[i] = v;
        break;
      case PT2C_I32:
        reinterpret_cast<int32_t *>(p)[i] = static_cast<int32_t>(v);
        break;
      case PT2C_BOOL:
        p[i] = static_cast<unsigned char>(v & 1);
        break;
      default:
        throw pt2c::Error(PT2C_ERROR_UNSUPPORTED,
                          std::string("cpp_server fills f32, i64, i32 and bool inputs, not ") +
                              pt2c::dtype_name(infos[k].dtype));
      }
    }
  }
}

double resident_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stod(line.substr(6)) / 1024.0;
  return 0.0;
}

// The requests, as a queue the workers take from until it is closed and empty.
class Queue {
public:
  void push(int request) {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.push_back(request);
    ready_.notify_one();
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    ready_.notify_all();
  }
  bool pop(int *request) { // false: closed and empty
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty())
      return false;
    *request = items_.front();
    items_.pop_front();
    return true;
  }

private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<int> items_;
  bool closed_ = false;
};

} // namespace

int main(int argc, char **argv) {
  std::string path;
  int threads = 8, requests = 200, threads_per_run = 1;
  CLI::App app{"Answers requests from N threads through one model's execution contexts"};
  app.add_option("model", path, "model.so (a CPU model)")->required();
  app.add_option("--threads", threads, "worker threads, one context each")
      ->check(CLI::Range(1, 256));
  app.add_option("--requests", requests, "requests to answer")->check(CLI::Range(1, 1000000));
  app.add_option("--threads-per-run", threads_per_run,
                 "pt2c_set_num_threads: threads each run may split over (default 1: the "
                 "workers are the parallelism)")
      ->check(CLI::Range(1, 1024));
  CLI11_PARSE(app, argc, argv);
  try {
    pt2c::Library library(path);
    library.set_num_threads(threads_per_run);
    pt2c::Model model = library.create_model();
    std::vector<pt2c::TensorInfo> in_infos = model.inputs(), out_infos = model.outputs();
    // The references: every request on the model alone, one at a time.
    std::vector<Tensors> expected;
    Tensors inputs = allocate(in_infos);
    for (int r = 0; r < requests; ++r) {
      fill_request(in_infos, r, &inputs);
      expected.push_back(allocate(out_infos));
      model.run(inputs.views, expected.back().views);
    }
    double alone = resident_mib();
    std::vector<pt2c::Context> contexts;
    for (int t = 0; t < threads; ++t)
      contexts.push_back(model.create_context());
    double with_contexts = resident_mib();

    Queue queue;
    std::mutex report;
    int mismatches = 0, failures = 0, answered = 0;
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        Tensors in = allocate(in_infos), out = allocate(out_infos);
        int request;
        while (queue.pop(&request)) {
          fill_request(in_infos, request, &in);
          try {
            contexts[t].run(in.views, out.views);
          } catch (const pt2c::Error &e) {
            std::lock_guard<std::mutex> lock(report);
            std::fprintf(stderr, "request %d: %s\n", request, e.what());
            ++failures;
            continue;
          }
          bool same = true;
          for (size_t k = 0; k < out.bytes.size(); ++k)
            same = same && out.bytes[k] == expected[request].bytes[k];
          std::lock_guard<std::mutex> lock(report);
          ++answered;
          if (!same) {
            ++mismatches;
            std::fprintf(stderr, "request %d (thread %d): the answer differs\n", request, t);
          }
        }
      });
    for (int r = 0; r < requests; ++r)
      queue.push(r);
    queue.close();
    for (std::thread &w : workers)
      w.join();
    double served = resident_mib();
    std::printf("%d threads x %d requests: %d answered, %d bit-identical to single-threaded "
                "runs, %d differ, %d failed\n",
                threads, requests, answered, answered - mismatches, mismatches, failures);
    std::printf("memory (VmRSS): model alone %.1f MiB; %d contexts created %.1f MiB; after "
                "serving %.1f MiB (%.2f MiB per context)\n",
                alone, threads, with_contexts, served, (served - alone) / threads);
    return mismatches == 0 && failures == 0 && answered == requests ? 0 : 1;
  } catch (const pt2c::Error &e) {
    std::fprintf(stderr, "cpp_server: %s\n", e.what());
    return 1;
  }
}
