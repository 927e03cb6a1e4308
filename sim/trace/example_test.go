package trace_test

import (
	"fmt"
	"strings"

	"github.com/rmsidecar/rmsidecar/sim/trace"
)

// The worked example of docs/traces.md: two FB-2009 jobs replayed on 3,000
// nodes, so every byte count is scaled by 3000/600 = 5.
func ExampleParseSWIM() {
	tsv := "job0\t49\t49\t740773\t2339561\t627471\n" +
		"job5891\t86394\t1\t26696479780\t78256050458\t24810560\n"
	jobs, err := trace.ParseSWIM(strings.NewReader(tsv), trace.SWIMOptions{Nodes: 3000})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range jobs {
		fmt.Printf("%s submit %.0fs input %d shuffle %d: %d maps, %d reduces, %.0f s/block, %.0f s/GB\n",
			j.Name, j.SubmitS, j.InputBytes, j.ShuffleBytes, j.Maps, j.Reduces, j.MapSPerBlock, j.ReduceSPerGB)
	}
	// Output:
	// job0 submit 0s input 57303500 shuffle 11697805: 1 maps, 1 reduces, 20 s/block, 60 s/GB
	// job5891 submit 86345s input 133482398900 shuffle 391280252290: 1165 maps, 600 reduces, 20 s/block, 60 s/GB
}

func ExampleParseError() {
	_, err := trace.ParseSWIM(strings.NewReader("job0\t49\t49\t74O773\t1\t1\n"), trace.SWIMOptions{File: "day0.tsv"})
	fmt.Println(err)
	// Output:
	// day0.tsv:1:12: map input bytes: "74O773" is not a non-negative byte count
}
