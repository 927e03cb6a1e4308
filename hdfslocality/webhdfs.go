package hdfslocality

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// BlockLocator returns the block locations of one file.
type BlockLocator interface {
	BlockLocations(ctx context.Context, path string, length int64) ([]Block, error)
}

// Block is one block (or erasure-coded block group) of a file.
type Block struct {
	Offset       int64    `json:"offset"`
	Length       int64    `json:"length"`
	Hosts        []string `json:"hosts"`         // datanode host names
	Names        []string `json:"names"`         // host:port (transfer port), parallel to Hosts
	Racks        []string `json:"racks"`         // rack of each host, parallel to Hosts
	CachedHosts  []string `json:"cached_hosts"`  // hosts with the block in the HDFS cache
	StorageTypes []string `json:"storage_types"` // DISK, SSD, ... when the NameNode reports them
	Corrupt      bool     `json:"corrupt"`
	// topologyPaths as reported by the NameNode ("/rack/host:port"); used as
	// the rack fallback when no RackResolver knows the host.
	topologyPaths []string
}

// HTTPDoer is what WebHDFS needs from an HTTP client; *http.Client and
// gokrb5's SPNEGO client both satisfy it.
type HTTPDoer interface {
	Do(req *http.Request) (*http.Response, error)
}

// WebHDFSOptions configure a WebHDFS block locator.
type WebHDFSOptions struct {
	// Addrs are NameNode HTTP addresses, "host:port" (http) or full base
	// URLs ("https://nn1:9871"). With HA list every NameNode; the active one
	// is found by trying them in turn and then remembered.
	Addrs []string
	// User is sent as user.name (simple authentication). Leave empty with
	// Kerberos, where the SPNEGO client authenticates.
	User string
	// Client performs requests; nil means an *http.Client with Timeout.
	Client HTTPDoer
	// Timeout for the default client; zero means 20s.
	Timeout time.Duration
	// OnFailover, if set, is called when a call moves on from a NameNode
	// that failed or was in standby (for metrics).
	OnFailover func(from string, err error)
}

// WebHDFS reads block locations from the NameNode's WebHDFS REST API.
// It is safe for concurrent use.
type WebHDFS struct {
	bases      []*url.URL
	user       string
	client     HTTPDoer
	onFailover func(string, error)
	active     atomic.Int32 // index of the NameNode that last answered
	// legacy is set once a NameNode rejected GETFILEBLOCKLOCATIONS (Hadoop
	// before 3.2) but answered GET_BLOCK_LOCATIONS, the older op its own
	// WebHDFS client used; later calls go straight to the older op.
	legacy atomic.Bool
}

// WebHDFS operations used to read block locations.
const (
	opBlockLocations = "GETFILEBLOCKLOCATIONS"
	opLegacy         = "GET_BLOCK_LOCATIONS"
)

// NewWebHDFS validates the options and returns a locator.
func NewWebHDFS(opts WebHDFSOptions) (*WebHDFS, error) {
	if len(opts.Addrs) == 0 {
		return nil, errors.New("hdfslocality: webhdfs: no NameNode HTTP address")
	}
	w := &WebHDFS{user: opts.User, client: opts.Client, onFailover: opts.OnFailover}
	for _, a := range opts.Addrs {
		u, err := parseBase(a)
		if err != nil {
			return nil, err
		}
		w.bases = append(w.bases, u)
	}
	if w.client == nil {
		t := opts.Timeout
		if t <= 0 {
			t = 20 * time.Second
		}
		w.client = &http.Client{Timeout: t}
	}
	return w, nil
}

func parseBase(a string) (*url.URL, error) {
	a = strings.TrimSpace(a)
	if !strings.Contains(a, "://") {
		a = "http://" + a
	}
	u, err := url.Parse(a)
	if err != nil {
		return nil, fmt.Errorf("hdfslocality: webhdfs address %q: %w", a, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("hdfslocality: webhdfs address %q: want host:port or http(s)://host:port", a)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// Addrs returns the NameNode base URLs in configured order.
func (w *WebHDFS) Addrs() []string {
	out := make([]string, len(w.bases))
	for i, b := range w.bases {
		out[i] = b.String()
	}
	return out
}

// BlockLocations asks the NameNodes, starting with the last one that
// answered, for the blocks of path in [0, length). A NameNode that cannot be
// reached, answers 5xx, or is in standby is skipped; any other answer
// (including FileNotFoundException) is final. When none answers the error
// matches ErrUnavailable.
func (w *WebHDFS) BlockLocations(ctx context.Context, path string, length int64) ([]Block, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("hdfslocality: webhdfs: path %q is not absolute", path)
	}
	if length <= 0 {
		return nil, nil
	}
	start := int(w.active.Load())
	var attempts []error
	for i := range w.bases {
		idx := (start + i) % len(w.bases)
		blocks, err, retry := w.try(ctx, w.bases[idx], path, length)
		if err == nil {
			w.active.Store(int32(idx))
			return blocks, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("hdfslocality: webhdfs %s: %w", path, ctx.Err())
		}
		if !retry {
			return nil, err
		}
		attempts = append(attempts, err)
		if w.onFailover != nil && len(w.bases) > 1 {
			w.onFailover(w.bases[idx].Host, err)
		}
	}
	return nil, fmt.Errorf("webhdfs GETFILEBLOCKLOCATIONS %s: %w", path, &unavailableError{attempts: attempts})
}

// blockLocationsJSON is the response of op=GETFILEBLOCKLOCATIONS.
type blockLocationsJSON struct {
	BlockLocations *struct {
		BlockLocation []struct {
			Hosts         []string `json:"hosts"`
			Names         []string `json:"names"`
			TopologyPaths []string `json:"topologyPaths"`
			CachedHosts   []string `json:"cachedHosts"`
			StorageTypes  []string `json:"storageTypes"`
			Offset        int64    `json:"offset"`
			Length        int64    `json:"length"`
			Corrupt       bool     `json:"corrupt"`
		} `json:"BlockLocation"`
	} `json:"BlockLocations"`
}

type remoteExceptionJSON struct {
	RemoteException *struct {
		Exception     string `json:"exception"`
		JavaClassName string `json:"javaClassName"`
		Message       string `json:"message"`
	} `json:"RemoteException"`
}

// maxBody bounds what is read from a NameNode answer: a file of 10^5
// blocks is still far below it, and a broken proxy cannot exhaust memory.
const maxBody = 64 << 20

// try asks one NameNode, falling back to the legacy op when the NameNode
// does not know GETFILEBLOCKLOCATIONS; retry says whether the next NameNode
// should be tried after err.
func (w *WebHDFS) try(ctx context.Context, base *url.URL, path string, length int64) ([]Block, error, bool) {
	if w.legacy.Load() {
		return w.do(ctx, base, path, length, opLegacy)
	}
	blocks, err, retry := w.do(ctx, base, path, length, opBlockLocations)
	var re *RemoteError
	if err == nil || !errors.As(err, &re) || !unsupportedOp(re) {
		return blocks, err, retry
	}
	blocks, lerr, lretry := w.do(ctx, base, path, length, opLegacy)
	var lre *RemoteError
	if lerr == nil || errors.As(lerr, &lre) && errorReason(lre) != "remote" {
		// The legacy op works here (a not-found answer proves it too).
		w.legacy.Store(true)
	}
	if lerr != nil && !w.legacy.Load() {
		return nil, fmt.Errorf("%w (and %s: %w)", err, opLegacy, lerr), lretry
	}
	return blocks, lerr, lretry
}

// unsupportedOp recognizes a NameNode that does not implement
// GETFILEBLOCKLOCATIONS: it rejects the op parameter's value.
func unsupportedOp(re *RemoteError) bool {
	switch re.JavaClassName {
	case "java.lang.IllegalArgumentException", "java.lang.UnsupportedOperationException":
		return strings.Contains(re.Message, opBlockLocations) || strings.Contains(re.Message, `"op"`)
	}
	return false
}

// do performs one request; retry says whether the next NameNode should be
// tried after err.
func (w *WebHDFS) do(ctx context.Context, base *url.URL, path string, length int64, op string) ([]Block, error, bool) {
	u := *base
	u.Path = base.Path + "/webhdfs/v1" + path
	q := url.Values{}
	q.Set("op", op)
	q.Set("offset", "0")
	q.Set("length", strconv.FormatInt(length, 10))
	if w.user != "" {
		q.Set("user.name", w.user)
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("hdfslocality: webhdfs request: %w", err), false
	}
	req.Header.Set("Accept", "application/json")
	resp, err := w.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("namenode %s: %w", base.Host, err), true
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("namenode %s: read response: %w", base.Host, err), true
	}
	if resp.StatusCode != http.StatusOK {
		var rj remoteExceptionJSON
		if json.Unmarshal(body, &rj) == nil && rj.RemoteException != nil {
			re := &RemoteError{Addr: base.Host, Status: resp.StatusCode, Exception: rj.RemoteException.Exception,
				JavaClassName: rj.RemoteException.JavaClassName, Message: rj.RemoteException.Message}
			// A 5xx RemoteException that still says "not found" or "denied"
			// is final; other 5xx ones may be a NameNode in transition.
			return nil, re, re.standby() || resp.StatusCode >= 500 && errorReason(re) == "remote"
		}
		hint := ""
		if resp.StatusCode == http.StatusNotFound {
			hint = " (no RemoteException: is WebHDFS enabled, dfs.webhdfs.enabled, and is this the NameNode's HTTP address?)"
		}
		err := fmt.Errorf("namenode %s: HTTP %d%s: %s", base.Host, resp.StatusCode, hint, snippet(body))
		// 5xx without a RemoteException is a proxy or a NameNode starting
		// up; another NameNode may do better. 4xx is our request's fault.
		return nil, err, resp.StatusCode >= 500
	}
	if op == opLegacy {
		return decodeLocatedBlocks(base.Host, body)
	}
	var bj blockLocationsJSON
	if err := json.Unmarshal(body, &bj); err != nil {
		return nil, fmt.Errorf("namenode %s: decode GETFILEBLOCKLOCATIONS: %w", base.Host, err), true
	}
	if bj.BlockLocations == nil {
		return nil, fmt.Errorf("namenode %s: GETFILEBLOCKLOCATIONS answer has no BlockLocations: %s", base.Host, snippet(body)), true
	}
	out := make([]Block, 0, len(bj.BlockLocations.BlockLocation))
	for _, b := range bj.BlockLocations.BlockLocation {
		out = append(out, Block{
			Offset: b.Offset, Length: b.Length, Hosts: b.Hosts, Names: b.Names,
			CachedHosts: b.CachedHosts, StorageTypes: b.StorageTypes, Corrupt: b.Corrupt,
			topologyPaths: b.TopologyPaths,
		})
	}
	return out, nil, false
}

// locatedBlocksJSON is the answer of op=GET_BLOCK_LOCATIONS (the NameNode's
// LocatedBlocks, as Hadoop's JsonUtil writes it).
type locatedBlocksJSON struct {
	LocatedBlocks *struct {
		LocatedBlocks []struct {
			StartOffset int64 `json:"startOffset"`
			IsCorrupt   bool  `json:"isCorrupt"`
			Block       struct {
				NumBytes int64 `json:"numBytes"`
			} `json:"block"`
			Locations       []datanodeJSON `json:"locations"`
			CachedLocations []datanodeJSON `json:"cachedLocations"`
			StorageTypes    []string       `json:"storageTypes"`
		} `json:"locatedBlocks"`
	} `json:"LocatedBlocks"`
}

type datanodeJSON struct {
	IPAddr          string `json:"ipAddr"`
	HostName        string `json:"hostName"`
	XferPort        int    `json:"xferPort"`
	NetworkLocation string `json:"networkLocation"`
}

func decodeLocatedBlocks(host string, body []byte) ([]Block, error, bool) {
	var lj locatedBlocksJSON
	if err := json.Unmarshal(body, &lj); err != nil {
		return nil, fmt.Errorf("namenode %s: decode %s: %w", host, opLegacy, err), true
	}
	if lj.LocatedBlocks == nil {
		return nil, fmt.Errorf("namenode %s: %s answer has no LocatedBlocks: %s", host, opLegacy, snippet(body)), true
	}
	out := make([]Block, 0, len(lj.LocatedBlocks.LocatedBlocks))
	for _, lb := range lj.LocatedBlocks.LocatedBlocks {
		b := Block{Offset: lb.StartOffset, Length: lb.Block.NumBytes, Corrupt: lb.IsCorrupt, StorageTypes: lb.StorageTypes}
		for _, d := range lb.Locations {
			name := net.JoinHostPort(d.IPAddr, strconv.Itoa(d.XferPort))
			b.Hosts = append(b.Hosts, d.HostName)
			b.Names = append(b.Names, name)
			b.topologyPaths = append(b.topologyPaths, strings.TrimSuffix(d.NetworkLocation, "/")+"/"+name)
		}
		for _, d := range lb.CachedLocations {
			b.CachedHosts = append(b.CachedHosts, d.HostName)
		}
		out = append(out, b)
	}
	return out, nil, false
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
