package yarnclient

import (
	"context"
	"testing"
)

// TestHadoop34Shapes: answers as the Hadoop 3.4.2 RM of the real-cluster
// harness renders them, where they differ from the fixtures.
func TestHadoop34Shapes(t *testing.T) {
	ctx := context.Background()
	rm := newFakeRM(t).
		// ContainersInfo without the "containers" wrapper.
		on("GET", "/ws/v1/cluster/apps/"+app1+"/appattempts/"+att1+"/containers", jsonReply(200, []byte(
			`{"container":[{"containerId":"container_1795305452482_0001_01_000001","allocatedMB":512,"allocatedVCores":1,"assignedNodeId":"localhost:41539"},`+
				`{"containerId":"container_1795305452482_0001_01_000002","allocatedMB":384,"allocatedVCores":1,"assignedNodeId":"localhost:43407"}]}`))).
		// exclusivity as a string.
		on("GET", "/ws/v1/cluster/get-node-labels", jsonReply(200, []byte(
			`{"nodeLabelInfo":[{"name":"map-slow","exclusivity":"false","partitionInfo":{}},{"name":"gpu","exclusivity":"true"}]}`)))
	c, _ := testClient(t, nil, rm.URL())
	cs, err := c.Containers(ctx, app1, att1)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[1].ContainerID != "container_1795305452482_0001_01_000002" || cs[1].AssignedNodeID != "localhost:43407" {
		t.Errorf("containers = %+v", cs)
	}
	labels, err := c.ClusterNodeLabels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) != 2 || labels[0] != (NodeLabel{Name: "map-slow"}) || labels[1] != (NodeLabel{Name: "gpu", Exclusivity: true}) {
		t.Errorf("labels = %+v", labels)
	}
}
