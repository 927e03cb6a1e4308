package report

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestFiguresRenderInARealRenderer draws every figure of two fixtures with
// librsvg (rsvg-convert, Debian librsvg2-bin), the renderer GNOME's browser
// and image tools use: each must render without an error to an image with
// something drawn on it. Structural checks (TestEveryFigureIsValidSVG) cannot
// see a figure a renderer rejects. CI installs the renderer and sets
// REQUIRE_SVG_RENDERER=1, so there the test cannot skip.
func TestFiguresRenderInARealRenderer(t *testing.T) {
	rsvg, err := exec.LookPath("rsvg-convert")
	if err != nil {
		if os.Getenv("REQUIRE_SVG_RENDERER") == "1" {
			t.Fatal("rsvg-convert not found and REQUIRE_SVG_RENDERER=1 (apt-get install librsvg2-bin)")
		}
		t.Skip("rsvg-convert not installed (apt-get install librsvg2-bin); structural checks still run")
	}
	fixtures := structureFixtures()
	for _, name := range []string{"fixture", "arrivals", "long names", "detail 3000 nodes"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := Write(dir, fixtures[name]); err != nil {
				t.Fatal(err)
			}
			files, err := filepath.Glob(filepath.Join(dir, ReportDir, "*.svg"))
			if err != nil || len(files) == 0 {
				t.Fatalf("no figures: %v", err)
			}
			for _, f := range files {
				var stderr bytes.Buffer
				cmd := exec.CommandContext(t.Context(), rsvg, "--format=png", f)
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Errorf("%s: rsvg-convert: %v: %s", filepath.Base(f), err, stderr.String())
					continue
				}
				if stderr.Len() > 0 {
					// Font configuration complains on machines without a font
					// cache; the image decides.
					t.Logf("%s: rsvg-convert said: %s", filepath.Base(f), stderr.String())
				}
				img, err := png.Decode(bytes.NewReader(out))
				if err != nil {
					t.Errorf("%s: rendered image: %v", filepath.Base(f), err)
					continue
				}
				if share := drawnShare(img); share < 0.005 {
					t.Errorf("%s: %.2f %% of the %v image differs from its corner: nothing drawn", filepath.Base(f), share*100, img.Bounds().Size())
				}
			}
		})
	}
}

// drawnShare is the share of pixels that differ from the top-left one (the
// background).
func drawnShare(img image.Image) float64 {
	b := img.Bounds()
	if b.Empty() {
		return 0
	}
	r0, g0, b0, a0 := img.At(b.Min.X, b.Min.Y).RGBA()
	diff := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			if r != r0 || g != g0 || bl != b0 || a != a0 {
				diff++
			}
		}
	}
	return float64(diff) / float64(b.Dx()*b.Dy())
}
