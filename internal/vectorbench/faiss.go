package vectorbench

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// faissScript builds FAISS's IndexHNSWFlat (euclidean) over the base
// vectors with the given M and efConstruction, searches the queries with
// efSearch on every thread, writes the ids found and prints its figures.
const faissScript = `
import json, sys, time
import numpy as np, faiss
base, queries, out, n, dim, nq, k, m, efc, efs, threads, minSeconds = sys.argv[1:13]
n, dim, nq, k, m, efc, efs, threads = map(int, (n, dim, nq, k, m, efc, efs, threads))
minSeconds = float(minSeconds)
faiss.omp_set_num_threads(threads)
xb = np.fromfile(base, dtype="<f4").reshape(n, dim)
xq = np.fromfile(queries, dtype="<f4").reshape(nq, dim)
index = faiss.IndexHNSWFlat(dim, m)
index.hnsw.efConstruction = efc
t = time.perf_counter()
index.add(xb)
build = time.perf_counter() - t
size = faiss.serialize_index(index).nbytes
index.hnsw.efSearch = efs
index.search(xq[:min(nq, 100)], k)
done, t = 0, time.perf_counter()
while True:
    D, I = index.search(xq, k)
    done += nq
    elapsed = time.perf_counter() - t
    if elapsed >= minSeconds:
        break
I.astype("<i8").tofile(out)
print(json.dumps({"version": faiss.__version__, "buildSeconds": build, "queriesPerSecond": done / elapsed,
                  "indexBytes": int(size)}))
`

// faissResult is what the script prints.
type faissResult struct {
	Version          string  `json:"version"`
	BuildSeconds     float64 `json:"buildSeconds"`
	QueriesPerSecond float64 `json:"queriesPerSecond"`
	IndexBytes       int64   `json:"indexBytes"` // serialized: vectors, links and levels
}

// faissPackages pins what the bench installs (as .ci/install-faiss does).
var faissPackages = []string{"faiss-cpu==1.15.1", "numpy==2.4.6"}

// pythonWithFaiss returns a python that imports faiss: python when set,
// else the one of the virtualenv at venv, made and filled when it does
// not import faiss yet.
func pythonWithFaiss(ctx context.Context, python, venv string) (string, error) {
	if python != "" {
		return python, imports(ctx, python)
	}
	py := filepath.Join(venv, "bin", "python")
	if imports(ctx, py) == nil {
		return py, nil
	}
	if out, err := exec.CommandContext(ctx, "python3", "-m", "venv", venv).CombinedOutput(); err != nil {
		return "", fmt.Errorf("python3 -m venv %s: %v: %s", venv, err, out)
	}
	args := append([]string{"install", "--quiet", "--disable-pip-version-check"}, faissPackages...)
	if out, err := exec.CommandContext(ctx, filepath.Join(venv, "bin", "pip"), args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("pip install %v: %v: %s", faissPackages, err, out)
	}
	return py, imports(ctx, py)
}

func imports(ctx context.Context, python string) error {
	if out, err := exec.CommandContext(ctx, python, "-c", "import faiss, numpy").CombinedOutput(); err != nil {
		return fmt.Errorf("%s cannot import faiss: %v: %s", python, err, bytes.TrimSpace(out))
	}
	return nil
}

// runFaiss runs the script over the files of the base vectors and the
// queries, and returns its figures and the ids it found per query.
func runFaiss(ctx context.Context, python, dir string, o Options, threads int) (*faissResult, []int64, error) {
	out := filepath.Join(dir, "faiss-ids.bin")
	args := []string{"-c", faissScript, filepath.Join(dir, "base.f32"), filepath.Join(dir, "queries.f32"), out,
		fmt.Sprint(o.Vectors), fmt.Sprint(o.Dimension), fmt.Sprint(o.Queries), fmt.Sprint(o.K), fmt.Sprint(o.M),
		fmt.Sprint(o.EfConstruction), fmt.Sprint(o.EfSearch), fmt.Sprint(threads), fmt.Sprint(o.MinDuration.Seconds())}
	cmd := exec.CommandContext(ctx, python, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, nil, fmt.Errorf("faiss: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var r faissResult
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return nil, nil, fmt.Errorf("faiss output %q: %w", stdout.String(), err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		return nil, nil, err
	}
	ids := make([]int64, len(raw)/8)
	for i := range ids {
		ids[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return &r, ids, nil
}
