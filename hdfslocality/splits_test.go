package hdfslocality

import (
	"fmt"
	"testing"
)

// file is a file of size bytes in blocks of bs, block i on host "h<i>".
func file(p string, size, bs int64) File {
	f := File{Path: p, Size: size}
	for off, i := int64(0), 0; off < size; off, i = off+bs, i+1 {
		f.Blocks = append(f.Blocks, Block{Offset: off, Length: min(bs, size-off), Hosts: []string{fmt.Sprintf("h%d", i)}})
	}
	return f
}

func TestInputSplits(t *testing.T) {
	type sp struct {
		path     string
		off, len int64
		host     string
	}
	tests := []struct {
		name  string
		files []File
		sizes SplitSizes
		want  []sp
	}{
		{"block-size splits, longest first (stable), the one-block file whole",
			[]File{file("/in/a", 250, 100), file("/in/b", 105, 100)}, SplitSizes{},
			[]sp{{"/in/b", 0, 105, "h0"}, {"/in/a", 0, 100, "h0"}, {"/in/a", 100, 100, "h1"}, {"/in/a", 200, 50, "h2"}}},
		{"SPLIT_SLOP: a remainder of 10 % rides with the last split",
			[]File{file("/in/a", 210, 100)}, SplitSizes{},
			[]sp{{"/in/a", 100, 110, "h1"}, {"/in/a", 0, 100, "h0"}}},
		{"maxsize below the block size cuts inside a block",
			[]File{file("/in/a", 120, 1000)}, SplitSizes{Max: 50},
			[]sp{{"/in/a", 0, 50, "h0"}, {"/in/a", 50, 50, "h0"}, {"/in/a", 100, 20, "h0"}}},
		{"minsize above the file: one split",
			[]File{file("/in/a", 250, 100)}, SplitSizes{Min: 1000},
			[]sp{{"/in/a", 0, 250, "h0"}}},
		{"gzip is read whole; an empty file is a split with no hosts",
			[]File{file("/in/a.gz", 250, 100), {Path: "/in/empty"}}, SplitSizes{},
			[]sp{{"/in/a.gz", 0, 250, "h0"}, {"/in/empty", 0, 0, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := InputSplits([]Result{{Files: tt.files}}, tt.sizes)
			if len(got) != len(tt.want) {
				t.Fatalf("%d splits %+v, want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				host := ""
				if len(g.Hosts) > 0 {
					host = g.Hosts[0]
				}
				if g.Path != w.path || g.Offset != w.off || g.Length != w.len || host != w.host {
					t.Errorf("split %d = %s@%d+%d on %v, want %s@%d+%d on %s", i, g.Path, g.Offset, g.Length, g.Hosts, w.path, w.off, w.len, w.host)
				}
			}
		})
	}
}
