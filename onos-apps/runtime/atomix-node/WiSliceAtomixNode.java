/*
 * One Atomix 3.1 storage node for a WiSlice ONOS cluster (onos-apps/runtime/onos-cluster starts three).
 *
 * Maven Central has no Atomix 3.1 agent (io.atomix:atomix-agent stops at 3.0.0, and ONOS 2.5 speaks the 3.1
 * protocol), so this is the agent's job done with the atomix 3.1.9 library ONOS itself boots: a Raft management
 * group "system" (1 partition) and a Raft partition group "raft" (one partition per storage node), the layout
 * ONOS's own onos-gen-config writes for its Atomix agents. ONOS nodes list these nodes as "storage" in their
 * cluster.json and join them as clients; the storage nodes hold every distributed primitive.
 *
 * Usage: WiSliceAtomixNode CLUSTER_ID LOCAL_ID DATA_DIR ID=HOST:PORT...  (the local id must be among the members)
 */

import io.atomix.cluster.Node;
import io.atomix.cluster.discovery.BootstrapDiscoveryProvider;
import io.atomix.core.Atomix;
import io.atomix.protocols.raft.partition.RaftPartitionGroup;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

public final class WiSliceAtomixNode {
    private WiSliceAtomixNode() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: WiSliceAtomixNode CLUSTER_ID LOCAL_ID DATA_DIR ID=HOST:PORT...");
            System.exit(2);
        }
        String clusterId = args[0];
        String localId = args[1];
        File dataDir = new File(args[2]);
        List<Node> nodes = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        String localHost = null;
        int localPort = -1;
        for (int i = 3; i < args.length; i++) {
            String[] idAddress = args[i].split("=", 2);
            String[] hostPort = idAddress[1].split(":", 2);
            int port = Integer.parseInt(hostPort[1]);
            nodes.add(Node.builder().withId(idAddress[0]).withAddress(hostPort[0], port).build());
            ids.add(idAddress[0]);
            if (idAddress[0].equals(localId)) {
                localHost = hostPort[0];
                localPort = port;
            }
        }
        if (localHost == null) {
            System.err.println("local id " + localId + " is not among the members " + ids);
            System.exit(2);
        }
        Atomix atomix = Atomix.builder()
                .withClusterId(clusterId)
                .withMemberId(localId)
                .withAddress(localHost, localPort)
                .withMembershipProvider(BootstrapDiscoveryProvider.builder().withNodes(nodes).build())
                .withManagementGroup(RaftPartitionGroup.builder("system")
                        .withNumPartitions(1)
                        .withMembers(ids)
                        .withDataDirectory(new File(dataDir, "system"))
                        .build())
                .withPartitionGroups(RaftPartitionGroup.builder("raft")
                        .withNumPartitions(ids.size())
                        .withMembers(ids)
                        .withDataDirectory(new File(dataDir, "raft"))
                        .build())
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        // SIGTERM (onos-cluster stop) leaves the Raft groups cleanly, so a restarted node catches up from its log.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            atomix.stop().join();
            stopped.countDown();
        }));
        try {
            atomix.start().join();
        } catch (RuntimeException e) {
            // Atomix's threads would keep a half-started JVM alive: fail visibly instead.
            e.printStackTrace();
            Runtime.getRuntime().halt(1);
        }
        System.out.println("atomix node " + localId + " ready on " + localHost + ":" + localPort);
        System.out.flush();
        stopped.await();
    }
}
