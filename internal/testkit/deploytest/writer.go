package deploytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
)

// Op is a commit Write makes from another process.
type Op struct {
	Table string `json:"table"` // namespace.table
	// Kind is "append" (Rows), "overwrite" (the rows whose id is in IDs
	// replaced by Rows, copy-on-write), "delete" (the rows whose id is in
	// IDs, as the table's write.delete.mode says: copy-on-write, or a
	// position delete file with merge-on-read) or "compact" (every file
	// rewritten with deletes applied, delete files removed).
	Kind string            `json:"kind"`
	IDs  []int64           `json:"ids,omitempty"`
	Rows []icebergtest.Row `json:"rows,omitempty"`
}

// writerEnv carries a writer's job to the process Write starts.
const writerEnv = "ONTOINDEX_TEST_WRITER"

type writerJob struct {
	Catalog string             `json:"catalog"`
	Props   iceberg.Properties `json:"props"`
	Op      Op                 `json:"op"`
}

// Write commits op from another process (the test binary run again, see
// RunWriterIfAsked) through its own catalog handle, and returns the
// snapshot it committed. The test's table handles see it after Refresh.
func (d *Deployment) Write(tb testing.TB, op Op) int64 {
	tb.Helper()
	job, err := json.Marshal(writerJob{Catalog: d.Warehouse.Name, Props: d.Warehouse.Props, Op: op})
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), writerEnv+"="+string(job))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("writer process (%s %s): %v\n%s", op.Kind, op.Table, err, stderr.String())
	}
	var snap int64
	if _, err := fmt.Sscanf(stdout.String(), "snapshot %d", &snap); err != nil {
		tb.Fatalf("writer process printed %q: %v\n%s", stdout.String(), err, stderr.String())
	}
	return snap
}

// RunWriterIfAsked runs the writer's job and exits when this process was
// started by Write; else it returns at once. Call it first in TestMain.
func RunWriterIfAsked() {
	raw, ok := os.LookupEnv(writerEnv)
	if !ok {
		return
	}
	snap, err := runWriter(context.Background(), raw)
	if err != nil {
		fmt.Fprintf(os.Stderr, "writer: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("snapshot %d\n", snap)
	os.Exit(0)
}

func runWriter(ctx context.Context, raw string) (int64, error) {
	var job writerJob
	if err := json.Unmarshal([]byte(raw), &job); err != nil {
		return 0, err
	}
	w, err := icebergtest.OpenWarehouse(ctx, job.Catalog, job.Props)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	t, err := w.LoadTable(ctx, job.Op.Table)
	if err != nil {
		return 0, fmt.Errorf("load %s: %w", job.Op.Table, err)
	}
	op := job.Op
	switch op.Kind {
	case "append":
		err = t.Append(ctx, op.Rows)
	case "overwrite":
		err = t.Overwrite(ctx, idsFilter(op.IDs), op.Rows)
	case "delete":
		err = t.Delete(ctx, idsFilter(op.IDs))
	case "compact":
		err = t.Compact(ctx)
	default:
		err = fmt.Errorf("unknown op %q (append, overwrite, delete, compact)", op.Kind)
	}
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", op.Kind, op.Table, err)
	}
	return t.T.CurrentSnapshot().SnapshotID, nil
}

func idsFilter(ids []int64) iceberg.BooleanExpression {
	if len(ids) == 1 {
		return iceberg.EqualTo(iceberg.Reference("id"), ids[0])
	}
	return iceberg.IsIn(iceberg.Reference("id"), ids...)
}

// String names the op, for logs.
func (o Op) String() string {
	return fmt.Sprintf("%s %s ids %v (%d rows)", o.Kind, o.Table, o.IDs, len(o.Rows))
}
