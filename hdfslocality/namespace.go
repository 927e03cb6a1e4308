package hdfslocality

import (
	"context"
	"fmt"
	"net"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	hdfs "github.com/colinmarc/hdfs/v2"
)

// Namespace is what the resolver needs from the HDFS namespace;
// *hdfs.Client (colinmarc) satisfies it, tests use a fake.
type Namespace interface {
	Stat(name string) (os.FileInfo, error)
	ReadDir(dirname string) ([]os.FileInfo, error)
}

// fileRef is one file found under an input path.
type fileRef struct {
	path string
	size int64
}

// hidden reports names MapReduce's FileInputFormat skips (_SUCCESS, _logs,
// .staging, ...), so locality covers the files a job will actually read.
func hidden(name string) bool {
	return strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")
}

// expand turns an input path into files: the path itself if it is a file,
// else every non-hidden file below it (recursively), at most maxFiles.
func expand(ctx context.Context, ns Namespace, root string, maxFiles int) (files []fileRef, truncated bool, err error) {
	fi, err := ns.Stat(root)
	if err != nil {
		return nil, false, fmt.Errorf("stat %s: %w", root, err)
	}
	if !fi.IsDir() {
		return []fileRef{{root, fi.Size()}}, false, nil
	}
	queue := []string{root}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		dir := queue[0]
		queue = queue[1:]
		entries, err := ns.ReadDir(dir)
		if err != nil {
			return nil, false, fmt.Errorf("list %s: %w", dir, err)
		}
		for _, e := range entries {
			if hidden(e.Name()) {
				continue
			}
			p := path.Join(dir, e.Name())
			if e.IsDir() {
				queue = append(queue, p)
				continue
			}
			if len(files) >= maxFiles {
				return files, true, nil
			}
			files = append(files, fileRef{p, e.Size()})
		}
	}
	return files, false, nil
}

// normalizePath accepts "/a/b" or "hdfs://authority/a/b" and returns the
// clean absolute path. The authority is dropped: one resolver serves one
// (default) filesystem.
func normalizePath(p string) (string, error) {
	p = strings.TrimSpace(p)
	if strings.Contains(p, "://") {
		scheme, rest, _ := strings.Cut(p, "://")
		if scheme != "hdfs" && scheme != "webhdfs" && scheme != "swebhdfs" && scheme != "viewfs" {
			return "", fmt.Errorf("hdfslocality: path %q: scheme %q is not HDFS", p, scheme)
		}
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			rest = "/"
		} else {
			rest = rest[i:]
		}
		p = rest
	}
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("hdfslocality: path %q is not absolute", p)
	}
	return path.Clean(p), nil
}

// lazyNamespace connects colinmarc's client on first use and retries the
// connection on later calls, because hdfs.NewClient dials at once and a
// NameNode that is down when the sidecar starts must not stop it starting.
// Once connected, the client fails over between HA NameNodes itself.
type lazyNamespace struct {
	opts hdfs.ClientOptions

	mu     sync.Mutex
	client *hdfs.Client
}

func newLazyNamespace(opts hdfs.ClientOptions, dialTimeout time.Duration) *lazyNamespace {
	if opts.NamenodeDialFunc == nil {
		opts.NamenodeDialFunc = (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
	}
	return &lazyNamespace{opts: opts}
}

func (l *lazyNamespace) get() (*hdfs.Client, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.client != nil {
		return l.client, nil
	}
	c, err := hdfs.NewClient(l.opts)
	if err != nil {
		return nil, fmt.Errorf("connect namenode %v: %w", l.opts.Addresses, err)
	}
	l.client = c
	return c, nil
}

func (l *lazyNamespace) Stat(name string) (os.FileInfo, error) {
	c, err := l.get()
	if err != nil {
		return nil, err
	}
	return c.Stat(name)
}

func (l *lazyNamespace) ReadDir(dir string) ([]os.FileInfo, error) {
	c, err := l.get()
	if err != nil {
		return nil, err
	}
	return c.ReadDir(dir)
}

func (l *lazyNamespace) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.client == nil {
		return nil
	}
	err := l.client.Close()
	l.client = nil
	return err
}
