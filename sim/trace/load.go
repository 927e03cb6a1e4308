package trace

import (
	"fmt"
	"os"
	"strings"
)

// Trace formats accepted by LoadFile and the CLI's --trace FORMAT:FILE.
const (
	FormatSWIM  = "swim"
	FormatRumen = "rumen"
	FormatSLS   = "sls"
)

// SplitSpec splits the CLI's "--trace swim:FILE" value into format and path.
func SplitSpec(spec string) (format, path string, err error) {
	format, path, ok := strings.Cut(spec, ":")
	if !ok || path == "" {
		return "", "", fmt.Errorf("trace %q: want FORMAT:FILE with FORMAT one of swim, rumen, sls", spec)
	}
	switch format {
	case FormatSWIM, FormatRumen, FormatSLS:
		return format, path, nil
	}
	return "", "", fmt.Errorf("trace %q: unknown format %q (want swim, rumen or sls)", spec, format)
}

// LoadFile parses the trace at path in the given format. SWIM options apply
// to swim only (their File is set to path); errors name the file.
func LoadFile(format, path string, opts SWIMOptions) ([]Job, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	defer f.Close()
	switch format {
	case FormatSWIM:
		opts.File = path
		return ParseSWIM(f, opts)
	case FormatRumen:
		return parseRumen(f, path)
	case FormatSLS:
		return ParseSLS(f, SLSOptions{File: path})
	}
	return nil, fmt.Errorf("trace %s: unknown format %q (want swim, rumen or sls)", path, format)
}
