package browsertest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

func mustPNG(tb testing.TB, w, h int, fill func(x, y int) color.Gray) []byte {
	tb.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetGray(x, y, fill(x, y))
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func TestCheckPNG(t *testing.T) {
	white := func(x, y int) color.Gray { return color.Gray{Y: 255} }
	// Text-like: dark strokes on a white page, a tenth of the pixels.
	text := func(x, y int) color.Gray {
		if y%12 < 2 && x%7 < 5 {
			return color.Gray{Y: 20}
		}
		return color.Gray{Y: 250}
	}
	faint := func(x, y int) color.Gray { return color.Gray{Y: uint8(250 + (x+y)%2)} }
	tests := []struct {
		name string
		png  []byte
		err  string
	}{
		{"blank", mustPNG(t, 800, 600, white), "looks blank"},
		{"almost blank", mustPNG(t, 800, 600, faint), "looks blank"},
		{"page with text", mustPNG(t, 800, 600, text), ""},
		{"too small", mustPNG(t, 50, 600, text), "50x600"},
		{"not a png", []byte("GIF89a..."), "decode png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPNG(tt.png)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("CheckPNG = %v, want %q", err, tt.err)
			}
		})
	}
}
