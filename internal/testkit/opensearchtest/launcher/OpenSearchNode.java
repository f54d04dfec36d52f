// OpenSearchNode starts one OpenSearch node from the jars of Maven Central
// (internal/testkit/opensearchtest/pom.xml), without the distribution: its
// modules are plugins on the classpath, given by class name.
//
//   java -cp <launcher>:<jars> OpenSearchNode <path.home> <plugin class>...
//
// The node reads <path.home>/config/opensearch.yml and log4j2.properties,
// which the test kit writes. Unlike the distribution's bootstrap, it installs
// no security manager, runs no bootstrap checks (a test node on loopback with
// a small heap would fail the production ones) and loads no native library.
// It stops on SIGTERM, closing the node (its shards flushed, its lock freed)
// before the JVM exits. It exits with status 1 when the node cannot start.
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.opensearch.common.logging.LogConfigurator;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;

public final class OpenSearchNode {
    private OpenSearchNode() {}

    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: OpenSearchNode <path.home> <plugin class>...");
            System.exit(2);
        }
        try {
            start(Paths.get(args[0]), List.of(args).subList(1, args.length));
        } catch (Throwable e) {
            // Logging may not be set up yet: the stack goes to stderr.
            System.err.println("OpenSearchNode: the node did not start");
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void start(Path home, List<String> pluginClasses) throws Exception {
        // The status logger's errors before logging is configured fail the
        // start, as they do in the distribution.
        LogConfigurator.registerErrorListener();
        Settings initial = Settings.builder().put(Environment.PATH_HOME_SETTING.getKey(), home.toString()).build();
        Environment env = InternalSettingsPreparer.prepareEnvironment(initial, Map.of(), home.resolve("config"), () -> "node");
        LogConfigurator.setNodeName(Node.NODE_NAME_SETTING.get(env.settings()));
        LogConfigurator.configure(env);

        List<Class<? extends Plugin>> plugins = new ArrayList<>();
        for (String name : pluginClasses) {
            plugins.add(Class.forName(name).asSubclass(Plugin.class));
        }
        Node node = new ClasspathNode(env, plugins);
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                node.awaitClose(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                closed.countDown();
            }
        }, "node-shutdown"));
        node.start();
        // The node's threads are daemons: main keeps the JVM up until the
        // shutdown hook has closed the node.
        closed.await();
    }

    // Node's constructor that takes classpath plugins is protected, for
    // embedders such as this one and the test framework's.
    private static final class ClasspathNode extends Node {
        ClasspathNode(Environment env, Collection<Class<? extends Plugin>> plugins) {
            super(env, plugins, true);
        }
    }
}
