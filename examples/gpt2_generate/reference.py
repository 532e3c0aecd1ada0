"""The greedy loop of generate.cpp in PyTorch eager, on model.py's plain language model
(no cache: every step runs the whole sequence), printing the same lines:

    python examples/gpt2_generate/reference.py [--model-py PATH] --prompt 3,14,15,92 \
        [--prompt ...] [--new-tokens 20]
"""
import argparse
import importlib.util
import os

import torch


def load(path):
    spec = importlib.util.spec_from_file_location("gpt2_generate_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def greedy(lm, prompt, new_tokens):
    tokens = list(prompt)
    with torch.no_grad():
        while len(tokens) < len(prompt) + new_tokens:
            logits = lm(torch.tensor([tokens])).logits
            tokens.append(int(torch.argmax(logits[0, -1])))
    return tokens[len(prompt):]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-py", default=os.path.join(os.path.dirname(__file__), "model.py"))
    parser.add_argument("--prompt", action="append", required=True)
    parser.add_argument("--new-tokens", type=int, default=20)
    args = parser.parse_args()
    lm = load(args.model_py).language_model()
    for text in args.prompt:
        prompt = [int(t) for t in text.split(",")]
        generated = greedy(lm, prompt, args.new_tokens)
        print("prompt: %s -> %s" % (" ".join(map(str, prompt)), " ".join(map(str, generated))))


if __name__ == "__main__":
    main()
