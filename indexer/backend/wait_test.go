package backend_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ontoindex/ontoindex/indexer/backend"
)

func TestWait(t *testing.T) {
	errCall, errResume := errors.New("call"), errors.New("resume")
	for _, tc := range []struct {
		name            string
		pause           bool
		callErr, resume error
		want            error
	}{
		{"no pause", false, nil, nil, nil},
		{"no pause, the call's error", false, errCall, nil, errCall},
		{"paused", true, nil, nil, nil},
		{"paused, the call's error first", true, errCall, errResume, errCall},
		{"paused, the resume's error", true, nil, errResume, errResume},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var events []string
			ctx := context.Background()
			if tc.pause {
				ctx = backend.WithPause(ctx, func() func(context.Context) error {
					events = append(events, "pause")
					return func(context.Context) error {
						events = append(events, "resume")
						return tc.resume
					}
				})
			}
			err := backend.Wait(ctx, func() error {
				events = append(events, "call")
				return tc.callErr
			})
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			want := "[call]"
			if tc.pause {
				want = "[pause call resume]"
			}
			if got := fmt.Sprint(events); got != want {
				t.Errorf("events %s, want %s", got, want)
			}
		})
	}
}
