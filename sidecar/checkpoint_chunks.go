package sidecar

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/profiles"
)

// Storage formats of the checkpoint record (rmsidecar/checkpoint).
//
// Format 1 (up to main 3e0954f) is the whole Checkpoint as one JSON value.
// At 10,000 nodes and 100,000 containers that is an 89 MB document: encoding
// it and saving it as one bbolt value took about 600 MB above the live heap.
//
// Format 2 splits it: the record rmsidecar/checkpoint is a header (the
// Checkpoint without its long lists, "v":2, the generation and each list's
// length and chunk count), and every long list is stored as JSON arrays of
// about chunkBytes each, one per namespace: the record
// "rmsidecar/checkpoint/<gen>/<list>/<i>"/chunk. A namespace each, because a
// namespace is a bbolt bucket of its own: bbolt rewrites a whole leaf when a
// key is added to it and keeps two to four values per leaf, so chunks
// side by side in one namespace were each written about four times over.
// A chunk's array is compressed (DEFLATE at its fastest level, the header's
// "codec") and stored as a JSON string of its base64: the arrays repeat
// their field names item after item and shrink about 13 times, and every
// byte saved into bbolt passes through a page buffer bbolt allocates on the
// heap, which was most of what a save left for the collector.
// Each chunk is written in a transaction of its own, the header last: until
// the header is replaced, it names the previous generation's chunks, which
// stay untouched, so a crash at any point loads the previous checkpoint
// whole. The transaction that writes the header deletes every other
// generation. Memory above the live state is then a few chunks, whatever
// the state's size.
const (
	ckFormatSingle  = 1
	ckFormatChunked = 2
	// defaultChunkBytes: a save holds one chunk's JSON (a buffer reused
	// for every chunk) and its compressed form in a few more buffers and
	// bbolt's pages; 4 MiB keeps that a few MB and the number of commits
	// (two fsyncs each) near 25 at the bench's size.
	defaultChunkBytes = 4 << 20
	ckChunkPrefix     = checkpointNS + "/" + checkpointKey + "/"
	ckChunkKey        = "chunk"
	ckCodec           = "deflate"
)

// Names of the chunked lists, in the order they are written.
const (
	secNodes    = "nodes"
	secApps     = "apps"
	secAttempts = "attempts"
	secGone     = "gone"
	secActive   = "active"
	secOutbox   = "outbox"
)

// storedCheckpoint is the record rmsidecar/checkpoint in either format: the
// embedded Checkpoint carries the whole state in format 1 and everything but
// the chunked lists in format 2. One decode tells the formats apart.
type storedCheckpoint struct {
	Checkpoint
	Gen uint64 `json:"gen,omitempty"`
	// CheckpointV is the Checkpoint's own V (Checkpoint.V in the record is
	// the storage format, so that a binary that knows only format 1 refuses
	// format 2 with "version 2" instead of restoring an empty state).
	CheckpointV int           `json:"checkpoint_v,omitempty"`
	Codec       string        `json:"codec,omitempty"`
	Sections    []sectionHead `json:"sections,omitempty"`
}

// sectionHead describes one chunked list.
type sectionHead struct {
	Name   string `json:"name"`
	Items  int    `json:"items"`
	Chunks int    `json:"chunks"`
	// Null: the list was nil. JSON keeps nil and empty apart for lists
	// without omitempty, and Load returns what format 1 returned.
	Null bool `json:"null,omitempty"`
}

// chunkStore is what the chunked format needs of a store: separate write
// transactions and one consistent read view. *profiles.DB (either backend)
// implements it; other stores keep format 1.
type chunkStore interface {
	Batch(ctx context.Context, fn func(tx *profiles.Tx) error) error
	View(ctx context.Context, fn func(tx *profiles.ReadTx) error) error
}

// chunkNS is the namespace of a chunk.
func chunkNS(gen uint64, section string, i int) string {
	return ckChunkPrefix + strconv.FormatUint(gen, 10) + "/" + section + "/" + strconv.Itoa(i)
}

// chunkGen returns the generation of a chunk's namespace, ok false for
// other namespaces.
func chunkGen(ns string) (uint64, bool) {
	rest, ok := strings.CutPrefix(ns, ckChunkPrefix)
	if !ok {
		return 0, false
	}
	g, _, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(g, 10, 64)
	return n, err == nil
}

// chunkWriter encodes lists into chunks with reused buffers and saves each
// chunk in its own transaction.
type chunkWriter struct {
	store chunkStore
	gen   uint64
	limit int
	buf   bytes.Buffer  // the chunk's JSON array
	enc   *json.Encoder // encodes into buf
	zbuf  bytes.Buffer  // buf compressed
	zw    *flate.Writer // compresses into zbuf
	out   []byte        // zbuf as a JSON string of base64
	// afterChunk, when set (tests), runs after each chunk is committed; an
	// error stops the save there, as a crash would.
	afterChunk func(ns string) error
}

func newChunkWriter(store chunkStore, gen uint64, limit int) (*chunkWriter, error) {
	w := &chunkWriter{store: store, gen: gen, limit: limit}
	// The encoder writes into buf and keeps no copy: nothing of a chunk
	// outlives its transaction but the stored bytes.
	w.enc = json.NewEncoder(&w.buf)
	// Room for a chunk and the item that crosses the limit, allocated once
	// rather than grown by doubling.
	w.buf.Grow(limit + limit/8)
	zw, err := flate.NewWriter(&w.zbuf, flate.BestSpeed)
	if err != nil {
		return nil, err
	}
	w.zw = zw
	return w, nil
}

func (w *chunkWriter) flush(ctx context.Context, ns string) error {
	w.buf.WriteByte(']')
	w.zbuf.Reset()
	w.zw.Reset(&w.zbuf)
	if _, err := w.zw.Write(w.buf.Bytes()); err != nil {
		return fmt.Errorf("chunk %s: compress: %w", ns, err)
	}
	if err := w.zw.Close(); err != nil {
		return fmt.Errorf("chunk %s: compress: %w", ns, err)
	}
	// What json.Marshal makes of a []byte, into a reused buffer.
	n := base64.StdEncoding.EncodedLen(w.zbuf.Len())
	w.out = slices.Grow(w.out[:0], n+2)[:n+2]
	w.out[0], w.out[n+1] = '"', '"'
	base64.StdEncoding.Encode(w.out[1:n+1], w.zbuf.Bytes())
	err := w.store.Batch(ctx, func(tx *profiles.Tx) error {
		return tx.PutRaw(ns, ckChunkKey, 1, w.out)
	})
	if err != nil {
		return fmt.Errorf("chunk %s: %w", ns, err)
	}
	w.buf.Reset()
	if w.afterChunk != nil {
		return w.afterChunk(ns)
	}
	return nil
}

// writeSection stores items as JSON arrays of about w.limit bytes each.
// omitEmpty mirrors the field's JSON tag: an empty list then loads as nil,
// as format 1 loaded it.
// prep, when set, returns what to encode for an item (nodes: the item with
// its compact history as the JSON's slice).
func writeSection[T any](ctx context.Context, w *chunkWriter, name string, items []T, omitEmpty bool, prep func(*T) *T) (sectionHead, error) {
	h := sectionHead{Name: name, Items: len(items), Null: items == nil || (omitEmpty && len(items) == 0)}
	if h.Null {
		h.Items = 0
		return h, nil
	}
	w.buf.Reset()
	w.buf.WriteByte('[')
	for i := range items {
		if w.buf.Len() > 1 {
			w.buf.WriteByte(',')
		}
		// A pointer, so that the item is not copied into an interface.
		item := &items[i]
		if prep != nil {
			item = prep(item)
		}
		if err := w.enc.Encode(item); err != nil {
			return h, fmt.Errorf("%s[%d]: %w", name, i, err)
		}
		if w.buf.Len() >= w.limit {
			if err := w.flush(ctx, chunkNS(w.gen, name, h.Chunks)); err != nil {
				return h, err
			}
			h.Chunks++
			w.buf.WriteByte('[')
		}
	}
	if w.buf.Len() > 1 {
		if err := w.flush(ctx, chunkNS(w.gen, name, h.Chunks)); err != nil {
			return h, err
		}
		h.Chunks++
	}
	return h, nil
}

// saveChunked writes c in format 2 (see ckFormatChunked).
func saveChunked(ctx context.Context, store chunkStore, c *Checkpoint, limit int, afterChunk func(string) error) error {
	// A generation above every one in the store: chunks the current header
	// names are never overwritten, whatever an earlier crash left behind.
	var gen uint64
	err := store.View(ctx, func(tx *profiles.ReadTx) error {
		nss, err := tx.Namespaces()
		for _, ns := range nss {
			if g, ok := chunkGen(ns); ok && g > gen {
				gen = g
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	gen++
	w, err := newChunkWriter(store, gen, limit)
	if err != nil {
		return err
	}
	w.afterChunk = afterChunk

	hdr := storedCheckpoint{Checkpoint: *c, Gen: gen, CheckpointV: c.V, Codec: ckCodec}
	hdr.V = ckFormatChunked
	hdr.Engine.Active, hdr.Outbox = nil, nil
	add := func(h sectionHead, err error) error {
		hdr.Sections = append(hdr.Sections, h)
		return err
	}
	if c.Cluster != nil {
		cl := *c.Cluster
		cl.Nodes, cl.Apps, cl.Attempts, cl.Gone = nil, nil, nil, nil
		hdr.Cluster = &cl
		// A node of CheckpointForSave holds its history compact: encoded
		// through one reused slice rather than a slice per node.
		var tmp cluster.NodeCk
		var samples []cluster.LoadSample
		withSamples := func(nc *cluster.NodeCk) *cluster.NodeCk {
			var out *cluster.NodeCk
			out, samples = nc.WithSamples(&tmp, samples)
			return out
		}
		if err := add(writeSection(ctx, w, secNodes, c.Cluster.Nodes, false, withSamples)); err != nil {
			return err
		}
		if err := add(writeSection(ctx, w, secApps, c.Cluster.Apps, false, nil)); err != nil {
			return err
		}
		if err := add(writeSection(ctx, w, secAttempts, c.Cluster.Attempts, false, nil)); err != nil {
			return err
		}
		if err := add(writeSection(ctx, w, secGone, c.Cluster.Gone, true, nil)); err != nil {
			return err
		}
	}
	if err := add(writeSection(ctx, w, secActive, c.Engine.Active, true, nil)); err != nil {
		return err
	}
	if err := add(writeSection(ctx, w, secOutbox, c.Outbox, true, nil)); err != nil {
		return err
	}
	// The flip: the header names the new generation, and every other
	// generation (the previous checkpoint, a crashed save's leftovers) goes
	// in the same transaction.
	err = store.Batch(ctx, func(tx *profiles.Tx) error {
		if err := tx.Put(checkpointNS, checkpointKey, &hdr); err != nil {
			return err
		}
		nss, err := tx.Namespaces()
		if err != nil {
			return err
		}
		for _, ns := range nss {
			if g, ok := chunkGen(ns); ok && g != gen {
				if err := tx.Delete(ns, ckChunkKey); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("header: %w", err)
	}
	return nil
}

// getFunc reads one record; found is false when it is missing.
type getFunc func(ns, key string, v any) (found bool, err error)

// chunkReader reads and decompresses chunks with reused buffers.
type chunkReader struct {
	get   getFunc
	gen   uint64
	z     []byte // a chunk as stored (json decodes the base64)
	plain bytes.Buffer
	zr    io.ReadCloser
}

// read returns the JSON array of chunk ns, valid until the next read.
func (r *chunkReader) read(ns string) ([]byte, bool, error) {
	r.z = r.z[:0]
	found, err := r.get(ns, ckChunkKey, &r.z)
	if err != nil || !found {
		return nil, found, err
	}
	src := bytes.NewReader(r.z)
	if r.zr == nil {
		r.zr = flate.NewReader(src)
	} else if err := r.zr.(flate.Resetter).Reset(src, nil); err != nil {
		return nil, true, err
	}
	r.plain.Reset()
	if _, err := r.plain.ReadFrom(r.zr); err != nil {
		return nil, true, fmt.Errorf("chunk %s: decompress: %w", ns, err)
	}
	return r.plain.Bytes(), true, nil
}

// readSection decodes a list's chunks straight into one slice of its final
// length (no growth, no second copy).
func readSection[T any](r *chunkReader, h sectionHead) ([]T, error) {
	if h.Null {
		if h.Items != 0 || h.Chunks != 0 {
			return nil, fmt.Errorf("%s: null with %d items in %d chunks", h.Name, h.Items, h.Chunks)
		}
		return nil, nil
	}
	if h.Items < 0 || h.Chunks < 0 || h.Chunks > h.Items {
		return nil, fmt.Errorf("%s: %d items in %d chunks", h.Name, h.Items, h.Chunks)
	}
	out := make([]T, h.Items)
	off := 0
	for i := range h.Chunks {
		ns := chunkNS(r.gen, h.Name, i)
		raw, found, err := r.read(ns)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("%s: chunk %s missing", h.Name, ns)
		}
		// Capacity capped at what is left: json.Unmarshal appends into the
		// slice's array while it fits, and a chunk with more items than
		// the header counts shows as a longer result.
		part := out[off:off:h.Items]
		if err := json.Unmarshal(raw, &part); err != nil {
			return nil, fmt.Errorf("%s: chunk %s: %w", h.Name, ns, err)
		}
		if len(part) > h.Items-off {
			return nil, fmt.Errorf("%s: more than %d items", h.Name, h.Items)
		}
		off += len(part)
	}
	if off != h.Items {
		return nil, fmt.Errorf("%s: %d items, header says %d", h.Name, off, h.Items)
	}
	return out, nil
}

// loadChunks fills the chunked lists of a format 2 header and returns the
// Checkpoint it was saved from.
func loadChunks(get getFunc, s *storedCheckpoint) (*Checkpoint, error) {
	if s.Codec != ckCodec {
		return nil, fmt.Errorf("codec %q, want %q", s.Codec, ckCodec)
	}
	c := s.Checkpoint
	c.V = s.CheckpointV
	r := &chunkReader{get: get, gen: s.Gen}
	seen := map[string]bool{}
	for _, h := range s.Sections {
		if seen[h.Name] {
			return nil, fmt.Errorf("section %q twice", h.Name)
		}
		seen[h.Name] = true
		var err error
		switch h.Name {
		case secNodes, secApps, secAttempts, secGone:
			if c.Cluster == nil {
				return nil, fmt.Errorf("section %q without a cluster", h.Name)
			}
		}
		switch h.Name {
		case secNodes:
			c.Cluster.Nodes, err = readSection[cluster.NodeCk](r, h)
		case secApps:
			c.Cluster.Apps, err = readSection[cluster.AppCk](r, h)
		case secAttempts:
			c.Cluster.Attempts, err = readSection[cluster.AttemptCk](r, h)
		case secGone:
			c.Cluster.Gone, err = readSection[cluster.GoneCk](r, h)
		case secActive:
			c.Engine.Active, err = readSection[engine.ActiveHint](r, h)
		case secOutbox:
			c.Outbox, err = readSection[policy.Hint](r, h)
		default:
			return nil, fmt.Errorf("unknown section %q (written by a newer version?)", h.Name)
		}
		if err != nil {
			return nil, err
		}
	}
	return &c, nil
}
