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
		// ContainersInfo without the "containers" wrapper, numbers quoted.
		on("GET", "/ws/v1/cluster/apps/"+app1+"/appattempts/"+att1+"/containers", jsonReply(200, []byte(
			`{"container":[{"containerId":"container_1795305452482_0001_01_000001","allocatedMB":512,"allocatedVCores":1,"assignedNodeId":"localhost:41539"},`+
				`{"containerId":"container_1795305452482_0001_01_000002","allocatedMB":"384","allocatedVCores":"1","assignedNodeId":"localhost:43407",`+
				`"priority":"20","startedTime":"1795306247337","finishedTime":"0","elapsedTime":"666","containerExitStatus":"0","containerState":"RUNNING",`+
				`"nodeId":"localhost:43407","allocatedResources":{"entry":[{"key":"memory-mb","value":"384"}]},"exposedPorts":""}]}`))).
		// exclusivity as a string.
		on("GET", "/ws/v1/cluster/get-node-labels", jsonReply(200, []byte(
			`{"nodeLabelInfo":[{"name":"map-slow","exclusivity":"false","partitionInfo":{}},{"name":"gpu","exclusivity":"true"}]}`)))
	c, _ := testClient(t, nil, rm.URL())
	cs, err := c.Containers(ctx, app1, att1)
	if err != nil {
		t.Fatal(err)
	}
	want := Container{ContainerID: "container_1795305452482_0001_01_000002", AllocatedMB: 384, AllocatedVCores: 1, AssignedNodeID: "localhost:43407",
		Priority: 20, StartedTime: 1795306247337, ElapsedTime: 666, ContainerState: "RUNNING", NodeID: "localhost:43407"}
	if len(cs) != 2 || cs[1] != want || cs[0].AllocatedMB != 512 {
		t.Errorf("containers = %+v\nwant [1] = %+v", cs, want)
	}
	labels, err := c.ClusterNodeLabels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) != 2 || labels[0] != (NodeLabel{Name: "map-slow"}) || labels[1] != (NodeLabel{Name: "gpu", Exclusivity: true}) {
		t.Errorf("labels = %+v", labels)
	}
}
