package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Files Write produces, relative to its directory.
const (
	ResultsFile = "results.json"
	ReportDir   = "report"
	TasksFile   = "tasks.csv" // under ReportDir
)

// Write writes res into dir: results.json, and under report/ table.txt,
// runs.csv, jobs.csv, makespan.svg, jct_cdf.svg, slowdown_cdf.svg,
// timeline.svg, heatmap.svg, gantt.svg, speculation.svg, index.html and,
// when every run kept its attempt rows (Run.Detail, a small run), tasks.csv
// (a tasks.csv left from an earlier report in dir is removed otherwise).
// Directories are created as needed; each file is written to a temporary
// name and renamed, so a reader never sees half a file.
func Write(dir string, res Results) error {
	if res.V == 0 {
		res.V = Version
	}
	outputs := []struct {
		path   string
		render func(io.Writer, Results) error
	}{
		{ResultsFile, WriteJSON},
		{filepath.Join(ReportDir, "table.txt"), WriteTable},
		{filepath.Join(ReportDir, "runs.csv"), WriteRunsCSV},
		{filepath.Join(ReportDir, "jobs.csv"), WriteJobsCSV},
		{filepath.Join(ReportDir, "makespan.svg"), WriteMakespanSVG},
		{filepath.Join(ReportDir, "jct_cdf.svg"), WriteJCTCDFSVG},
		{filepath.Join(ReportDir, "slowdown_cdf.svg"), WriteSlowdownCDFSVG},
		{filepath.Join(ReportDir, "timeline.svg"), WriteTimelineSVG},
		{filepath.Join(ReportDir, "heatmap.svg"), WriteHeatmapSVG},
		{filepath.Join(ReportDir, "gantt.svg"), WriteGanttSVG},
		{filepath.Join(ReportDir, "speculation.svg"), WriteSpeculationSVG},
		{filepath.Join(ReportDir, "index.html"), WriteHTML},
	}
	tasks := filepath.Join(dir, ReportDir, TasksFile)
	if ok, _ := tasksCSV(res); ok {
		outputs = append(outputs, struct {
			path   string
			render func(io.Writer, Results) error
		}{filepath.Join(ReportDir, TasksFile), WriteTasksCSV})
	} else if err := os.Remove(tasks); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("remove stale %s: %w", tasks, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ReportDir), 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	for _, o := range outputs {
		var b bytes.Buffer
		if err := o.render(&b, res); err != nil {
			return fmt.Errorf("%s: %w", o.path, err)
		}
		if err := writeFileAtomic(filepath.Join(dir, o.path), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
