"""The greedy loop of transcribe.cpp in PyTorch eager, on model.py's plain Whisper (no
cache: every step runs the encoder and the whole decoder sequence), printing the same
lines:

    python examples/whisper_transcribe/reference.py --features mel.npy [--features ...] \
        --prompt 1,5,6,7 [--new-tokens 20]
"""
import argparse
import importlib.util
import os

import numpy as np
import torch


def load(path):
    spec = importlib.util.spec_from_file_location("whisper_transcribe_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-py", default=os.path.join(os.path.dirname(__file__), "model.py"))
    parser.add_argument("--features", action="append", required=True)
    parser.add_argument("--prompt", required=True)
    parser.add_argument("--new-tokens", type=int, default=20)
    args = parser.parse_args()
    whisper = load(args.model_py).whisper()
    prompt = [int(t) for t in args.prompt.split(",")]
    for path in args.features:
        features = torch.from_numpy(np.load(path))
        tokens = list(prompt)
        with torch.no_grad():
            while len(tokens) < len(prompt) + args.new_tokens:
                logits = whisper(input_features=features,
                                 decoder_input_ids=torch.tensor([tokens])).logits
                tokens.append(int(torch.argmax(logits[0, -1])))
        print("%s: %s -> %s" % (path, " ".join(map(str, prompt)),
                                " ".join(map(str, tokens[len(prompt):]))))


if __name__ == "__main__":
    main()
