package searchbench

import "testing"

func TestLargestDivisor(t *testing.T) {
	tests := []struct{ n, limit, want int }{
		{99_900, 10_000, 9990},
		{2400, 10_000, 2400},
		{100, 10_000, 100},
		{97, 10, 1},
		{1, 10, 1},
		{20_000, 10_000, 10_000},
	}
	for _, tt := range tests {
		if got := largestDivisor(tt.n, tt.limit); got != tt.want {
			t.Errorf("largestDivisor(%d, %d) = %d, want %d", tt.n, tt.limit, got, tt.want)
		}
	}
}
