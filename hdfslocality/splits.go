package hdfslocality

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/rmsidecar/rmsidecar/events"
)

// splitSlop is FileInputFormat's SPLIT_SLOP: a remainder up to 10 % of a
// split rides with the last split instead of making its own.
const splitSlop = 1.1

// SplitSizes are a job's split size bounds
// (mapreduce.input.fileinputformat.split.minsize / .maxsize); zero is
// Hadoop's default (1 and no maximum).
type SplitSizes struct {
	Min, Max int64
}

// unsplittable are the codecs whose files FileInputFormat reads whole
// (TextInputFormat.isSplitable: no SplittableCompressionCodec).
var unsplittable = []string{".gz", ".deflate", ".snappy", ".lz4", ".zst"}

// InputSplits are the splits a FileInputFormat job (new API, as
// TextInputFormat) gets for the files of results, in the order its map
// tasks are numbered: every file (listing order) cut into split-size pieces,
// the last taking a remainder of up to 10 %, each with the hosts of the
// block it starts in; an empty file is one split with no hosts. JobSubmitter
// then sorts the splits by length, longest first (stable), and map i reads
// split i.
func InputSplits(results []Result, sizes SplitSizes) []events.Split {
	minSize := max(1, sizes.Min)
	maxSize := sizes.Max
	if maxSize <= 0 {
		maxSize = math.MaxInt64
	}
	var out []events.Split
	for _, r := range results {
		for _, f := range r.Files {
			if f.Size == 0 {
				out = append(out, events.Split{Path: f.Path})
				continue
			}
			if !splittable(f.Path) {
				out = append(out, events.Split{Path: f.Path, Length: f.Size, Hosts: hostsAt(f.Blocks, 0)})
				continue
			}
			// The file's block size: its first block unless the file fits in
			// one, where any block size >= the file gives the same splits.
			blockSize := f.Size
			if len(f.Blocks) > 1 {
				blockSize = f.Blocks[0].Length
			}
			splitSize := max(minSize, min(maxSize, blockSize))
			remaining := f.Size
			for float64(remaining)/float64(splitSize) > splitSlop {
				off := f.Size - remaining
				out = append(out, events.Split{Path: f.Path, Offset: off, Length: splitSize, Hosts: hostsAt(f.Blocks, off)})
				remaining -= splitSize
			}
			if remaining > 0 {
				off := f.Size - remaining
				out = append(out, events.Split{Path: f.Path, Offset: off, Length: remaining, Hosts: hostsAt(f.Blocks, off)})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b events.Split) int { return cmp.Compare(b.Length, a.Length) })
	return out
}

func splittable(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return !slices.Contains(unsplittable, ext)
}

// hostsAt are the hosts of the block holding byte off (the last block when
// off is past them all, as FileInputFormat.getBlockIndex would fail there).
func hostsAt(blocks []Block, off int64) []string {
	for i := len(blocks) - 1; i >= 0; i-- {
		if b := blocks[i]; b.Offset <= off {
			return slices.Clone(b.Hosts)
		}
	}
	if len(blocks) > 0 {
		return slices.Clone(blocks[0].Hosts)
	}
	return nil
}

// Splits resolves paths (waiting for the NameNode where the cache has no
// fresh answer) and returns InputSplits of them. stale reports that some
// answer was older than the TTL (the NameNode could not be asked again).
// A path that could not be resolved at all is an error naming it: a
// partial list would number the splits wrongly.
func (r *Resolver) Splits(ctx context.Context, paths []string, sizes SplitSizes) (splits []events.Split, stale bool, err error) {
	res, err := r.Resolve(ctx, paths)
	if err != nil {
		return nil, false, err
	}
	for _, x := range res {
		if x.Err != nil && len(x.Files) == 0 {
			return nil, false, fmt.Errorf("hdfslocality: splits of %s: %w", x.Path, x.Err)
		}
		if x.Truncated {
			return nil, false, fmt.Errorf("hdfslocality: splits of %s: more files than max_files_per_path", x.Path)
		}
		stale = stale || x.Stale
	}
	return InputSplits(res, sizes), stale, nil
}
