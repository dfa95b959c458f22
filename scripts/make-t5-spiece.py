#!/usr/bin/python3
"""Writes tests/data/embed/t5_spiece.model: a SentencePiece model with ProtT5's
vocabulary layout (Rostlab/prot_t5_xl_uniref50's spiece.model: 28 pieces,
0 <pad>, 1 </s>, 2 <unk>, then one "▁X" piece per residue letter in RostLab's
order; T5Tokenizer then adds <extra_id_0..99> as ids 127..28 for a
128-row embedding table). Run once, here, with Debian's python3-sentencepiece
and python3-protobuf (the system python: /usr/bin/python3):
    /usr/bin/python3 scripts/make-t5-spiece.py tests/data/embed/t5_spiece.model
The fixtures script (make-t5-fixtures.py) copies the committed file into each
fixture; it does not need sentencepiece itself.
"""
import sys

from sentencepiece import sentencepiece_model_pb2 as pb

# RostLab's order of the residue pieces (ids 3..27).
RESIDUES = "ALGVSREDTIPKFQNYMHWCXBOUZ"


def main():
    out = sys.argv[1]
    m = pb.ModelProto()
    t = m.trainer_spec
    t.model_type = pb.TrainerSpec.UNIGRAM
    t.vocab_size = 3 + len(RESIDUES)
    t.pad_id, t.eos_id, t.unk_id, t.bos_id = 0, 1, 2, -1
    t.pad_piece, t.eos_piece, t.unk_piece = "<pad>", "</s>", "<unk>"
    n = m.normalizer_spec
    n.name = "identity"  # no NFKC folding: residues are ASCII letters
    n.add_dummy_prefix = True
    n.remove_extra_whitespaces = True
    n.escape_whitespaces = True
    for piece, kind in (("<pad>", pb.ModelProto.SentencePiece.CONTROL),
                        ("</s>", pb.ModelProto.SentencePiece.CONTROL),
                        ("<unk>", pb.ModelProto.SentencePiece.UNKNOWN)):
        p = m.pieces.add()
        p.piece, p.score, p.type = piece, 0.0, kind
    for i, c in enumerate(RESIDUES):
        p = m.pieces.add()
        p.piece, p.score, p.type = "\u2581" + c, -1.0 - 0.1 * i, pb.ModelProto.SentencePiece.NORMAL
    with open(out, "wb") as f:
        f.write(m.SerializeToString())
    print(f"{out}: {len(m.pieces)} pieces")


if __name__ == "__main__":
    main()
