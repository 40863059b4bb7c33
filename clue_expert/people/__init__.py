"""What people use: the notebook, the human seat, replay and exports, rendering (the only rich importer), the cli (the only argparse importer)."""
