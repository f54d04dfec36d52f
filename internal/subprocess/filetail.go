package subprocess

import (
	"os"
	"strings"
)

// FileTail is the last limit bytes of a file, trimmed: the end of a
// child's log for an error message ("" when it cannot be read).
func FileTail(path string, limit int) string {
	b, _ := os.ReadFile(path)
	if len(b) > limit {
		b = b[len(b)-limit:]
	}
	return strings.TrimSpace(string(b))
}
