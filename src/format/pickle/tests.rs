//! Unit tests: opcode corner cases (filled in below).
