# Pin assignments of the PEACH2 board image (peach2_top), sourced by peach2.qsf.
#
# This is the file to fill in from the board schematic. Every top-level port has one
# entry: port, location, I/O standard, what it is. A location is PIN_<ball> or
# UNASSIGNED; UNASSIGNED ports get their I/O standard but no location, and Quartus
# places them itself (a warning per port at compile time; `peach2 fpga quartus`
# counts them). I/O standards are those of Altera's Stratix IV PCIe reference
# designs; check the banks' VCCIO on the schematic.
#
# Differential pairs (reference clocks and lanes) are assigned by their + pin;
# Quartus places the - pin. Each hard IP is bonded to fixed transceiver blocks, so
# lane k of a port must be on channel k of the blocks of the hard IP it uses (the
# Pin Planner shows the PCIe hard IP blocks and their channels); the four ports must
# use four different hard IPs.

set peach2_pins {
    {clk_100          UNASSIGNED {2.5 V}        {on-board 100 MHz oscillator: reference of the auxiliary PLL (50 MHz transceiver reconfiguration clock, 125 MHz fixedclk_serdes)}}
    {pcie_perst_n     UNASSIGNED {2.5 V}        {PERST# of the host edge connector (port N), active low: resets the board}}
    {n_refclk         UNASSIGNED {HCSL}         {100 MHz PCIe reference clock of the hard IP of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_rx[0]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 0 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_rx[1]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 1 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_rx[2]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 2 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_rx[3]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 3 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_rx[4]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 4 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_rx[5]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 5 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_rx[6]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 6 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_rx[7]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 7 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_tx[0]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 0 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_tx[1]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 1 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_tx[2]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 2 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_tx[3]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 3 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_tx[4]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 4 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_tx[5]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 5 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_tx[6]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 6 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {n_tx[7]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 7 of port N, the host edge connector (endpoint); the + pin of the pair}}
    {e_refclk         UNASSIGNED {HCSL}         {100 MHz PCIe reference clock of the hard IP of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_rx[0]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 0 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_rx[1]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 1 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_rx[2]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 2 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_rx[3]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 3 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_rx[4]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 4 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_rx[5]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 5 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_rx[6]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 6 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_rx[7]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 7 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_tx[0]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 0 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_tx[1]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 1 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_tx[2]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 2 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_tx[3]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 3 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_tx[4]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 4 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_tx[5]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 5 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_tx[6]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 6 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {e_tx[7]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 7 of port E, cable connector (endpoint, cabled to the neighbour's W); the + pin of the pair}}
    {w_refclk         UNASSIGNED {HCSL}         {100 MHz PCIe reference clock of the hard IP of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_rx[0]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 0 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_rx[1]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 1 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_rx[2]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 2 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_rx[3]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 3 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_rx[4]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 4 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_rx[5]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 5 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_rx[6]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 6 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_rx[7]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 7 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_tx[0]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 0 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_tx[1]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 1 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_tx[2]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 2 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_tx[3]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 3 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_tx[4]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 4 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_tx[5]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 5 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_tx[6]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 6 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {w_tx[7]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 7 of port W, cable connector (root port, cabled to the neighbour's E); the + pin of the pair}}
    {s_refclk         UNASSIGNED {HCSL}         {100 MHz PCIe reference clock of the hard IP of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_rx[0]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 0 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_rx[1]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 1 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_rx[2]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 2 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_rx[3]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 3 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_rx[4]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 4 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_rx[5]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 5 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_rx[6]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 6 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_rx[7]          UNASSIGNED {1.4-V PCML}   {PCIe receive lane 7 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_tx[0]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 0 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_tx[1]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 1 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_tx[2]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 2 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_tx[3]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 3 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_tx[4]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 4 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_tx[5]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 5 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_tx[6]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 6 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {s_tx[7]          UNASSIGNED {1.4-V PCML}   {PCIe transmit lane 7 of port S, cable connector (x16 connector, 8 lanes used; role set at build time); the + pin of the pair}}
    {e_cperst_n       UNASSIGNED {2.5 V}        {cable PERST# of port E, input (driven by the neighbour's W root port), active low}}
    {w_cperst_n       UNASSIGNED {2.5 V}        {cable PERST# of port W, output to the neighbour's E, active low, released with the core}}
    {s_cperst_n       UNASSIGNED {2.5 V}        {cable PERST# of port S: output when S is a root port, input when an endpoint, active low}}
}

foreach peach2_pin $peach2_pins {
    lassign $peach2_pin port location standard description
    set_instance_assignment -name IO_STANDARD $standard -to $port
    if {$location ne "UNASSIGNED"} {
        set_location_assignment $location -to $port
    }
}
