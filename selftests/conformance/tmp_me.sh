set -e
bash selftests/conformance/topology.sh up
python3 selftests/conformance/conformance.py --tools --corpus selftests/conformance/corpus --name-suffix ' via tools'
