set -e
bash selftests/conformance/topology.sh up
python3 selftests/conformance/conformance.py --corpus selftests/conformance/corpus --generate 150 --seed 100 --steps 24 "$@"
