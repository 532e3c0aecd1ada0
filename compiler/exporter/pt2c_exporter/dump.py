"""`python -m pt2c_exporter.dump FILE.pt2c`: print an artifact's message as text.

For debugging; the weights blob is summarised (size and where it starts), not printed.
"""
import sys

from google.protobuf import text_format

from .reader import ArtifactFile


def main(argv):
    if len(argv) != 1:
        sys.stderr.write("usage: python -m pt2c_exporter.dump FILE.pt2c\n")
        return 1
    artifact = ArtifactFile(argv[0])
    sys.stdout.write(text_format.MessageToString(artifact.message))
    sys.stdout.write("# weights blob: %d bytes at file offset %d\n"
                     % (len(artifact.blob), artifact.blob_start))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
