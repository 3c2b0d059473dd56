"""The gRPC layer: servicers that only convert between wire messages and the arena's services."""
