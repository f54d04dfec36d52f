package opensearchtest

// Profile is how a node's JVM and thread pools are set up.
type Profile int

const (
	// ProfileTest is cheap to start and small beside the tests on a
	// shared two-core machine: the serial collector, the client
	// compiler only (-XX:TieredStopAtLevel=1) and node.processors 1,
	// which keeps the node's thread pools at one thread each. It
	// understates what a node answers and indexes.
	ProfileTest Profile = iota
	// ProfileBench runs a node as the distribution's jvm.options and
	// defaults would on this machine: G1 (with the distribution's
	// G1ReservePercent and InitiatingHeapOccupancyPercent), both
	// compilers, and thread pools sized by every processor the JVM sees.
	// For benchmarks that compare the node with something else.
	ProfileBench
)

func (p Profile) String() string {
	if p == ProfileBench {
		return "bench (G1, C2, every processor)"
	}
	return "test (serial GC, client compiler, one processor)"
}

// jvmArgs are the JVM flags of the profile that the launcher's command
// line does not hold for every node.
func (p Profile) jvmArgs() []string {
	if p == ProfileBench {
		return []string{"-XX:+UseG1GC", "-XX:G1ReservePercent=25", "-XX:InitiatingHeapOccupancyPercent=30"}
	}
	// One GC thread and the client compiler: three nodes share two
	// cores with the tests' own process.
	return []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"}
}

// settings are the lines of opensearch.yml the profile adds.
func (p Profile) settings() []setting {
	if p == ProfileBench {
		return nil // thread pools sized by the processors the JVM sees
	}
	// One thread a pool: three nodes share two cores with the tests.
	return []setting{{"node.processors", 1}}
}
