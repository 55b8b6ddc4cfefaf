// The Catch2 (v2) main for core-tests; the tests are in the other test_*.cc files.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
