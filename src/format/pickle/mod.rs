//! A pickle reader that never executes (issue #12): being written.
