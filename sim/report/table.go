package report

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// tableColumns are the summary's columns; the "vs <baseline>" column is
// added after makespan when there is more than one run.
var tableColumns = []string{"policy", "makespan s", "mean JCT s", "p50 JCT s", "p95 JCT s", "node-local", "spec", "won", "wasted s", "x-rack GB", "util", "Jain", "energy kWh"}

// summaryRows is the table as strings, shared by the text table and the
// HTML report so both always show the same figures.
func summaryRows(res Results) (header []string, rows [][]string) {
	bi := baseline(res)
	compare := len(res.Runs) > 1
	header = append(header, tableColumns[:2]...)
	if compare {
		header = append(header, "vs "+res.Runs[bi].Policy)
	}
	header = append(header, tableColumns[2:]...)
	for i, r := range res.Runs {
		row := []string{r.Policy, f1(r.MakespanS)}
		if compare {
			rel, ok := relMakespan(r, res.Runs[bi])
			switch {
			case i == bi:
				row = append(row, "base")
			case ok:
				row = append(row, fmt.Sprintf("%+.1f%%", (rel-1)*100))
			default:
				row = append(row, "-")
			}
		}
		row = append(row,
			f1(r.MeanJCTS), f1(r.P50JCTS), f1(r.P95JCTS),
			pct(r.Locality.Node),
			strconv.Itoa(r.Spec.Launched), strconv.Itoa(r.Spec.Won), fmt.Sprintf("%.0f", r.Spec.WastedS),
			fmt.Sprintf("%.2f", float64(r.CrossRackShuffleBytes)/1e9),
			pct(r.Utilization), fmt.Sprintf("%.3f", r.Jain), fmt.Sprintf("%.2f", r.EnergyKWh))
		rows = append(rows, row)
	}
	return header, rows
}

func f1(v float64) string  { return strconv.FormatFloat(v, 'f', 1, 64) }
func pct(v float64) string { return strconv.FormatFloat(v*100, 'f', 1, 64) + "%" }

// WriteTable writes the runs as an aligned text table for a terminal: the
// policy left-aligned, figures right-aligned, the relative makespan against
// stock YARN (or the first run) when there are several runs.
func WriteTable(w io.Writer, res Results) error {
	header, rows := summaryRows(res)
	widths := make([]int, len(header))
	for _, row := range append([][]string{header}, rows...) {
		for i, c := range row {
			widths[i] = max(widths[i], len(c))
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "scenario %s, seed %d, %d run(s)\n", orDash(res.Scenario), res.Seed, len(res.Runs))
	if note := partialNote(res); note != "" {
		fmt.Fprintf(&b, "PARTIAL: %s\n", note)
	}
	for _, row := range append([][]string{header}, rows...) {
		var line strings.Builder
		for i, c := range row {
			if i > 0 {
				line.WriteString("  ")
				line.WriteString(strings.Repeat(" ", widths[i]-len(c)))
				line.WriteString(c)
			} else {
				line.WriteString(c)
				line.WriteString(strings.Repeat(" ", widths[i]-len(c)))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
