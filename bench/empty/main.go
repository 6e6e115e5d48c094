// Command empty is the benchmark's floor: an empty Go program, so hook
// latencies can be read against process start-up measured in the same run.
package main

func main() {}
