# Timing constraints of the PEACH2 board image (peach2_top).
#
# Clocks: the core, the adapters and every hard IP's application interface run on
# N's core_clk_out (250 MHz, Gen2 x8 with the 128-bit interface); derive_pll_clocks
# creates it, the other hard IPs' clocks and the auxiliary PLL's outputs from the
# base clocks below.

set_time_format -unit ns -decimal_places 3

# 100 MHz PCIe reference clocks, one per hard IP.
create_clock -name n_refclk -period 10.000 [get_ports {n_refclk}]
create_clock -name e_refclk -period 10.000 [get_ports {e_refclk}]
create_clock -name w_refclk -period 10.000 [get_ports {w_refclk}]
create_clock -name s_refclk -period 10.000 [get_ports {s_refclk}]
# On-board 100 MHz oscillator, reference of the auxiliary PLL.
create_clock -name clk_100 -period 10.000 [get_ports {clk_100}]

derive_pll_clocks
derive_clock_uncertainty

# As the SDC of Altera's IP Compiler example designs for the Stratix IV hard IP:
# the hard IP's internal clocks are exclusive to the transceiver clocks.
set_clock_groups -exclusive -group [get_clocks {*central_clk_div0*}] -group [get_clocks {*_hssi_pcie_hip*}]
set_clock_groups -exclusive -group [get_clocks {*refclk*clkout}] -group [get_clocks {*div0*coreclkout}]

# The auxiliary PLL's 50 MHz reconfiguration and 125 MHz fixedclk_serdes clocks only
# reach the transceivers and their reconfiguration controllers, which synchronise
# them: asynchronous to the core clock.
set_clock_groups -asynchronous \
    -group [get_clocks {clk_100 *aux_pll*}] \
    -group [get_clocks {*port_n*coreclkout*}]

# Resets. PERST# pins and PLL lock signals enter the core clock domain only through
# reset_sync (asynchronous assertion, synchronous release): the synchronisers' inputs
# are not timed. The cable PERST# outputs are static once the board is out of reset.
set_false_path -from [get_ports {pcie_perst_n e_cperst_n s_cperst_n}]
set_false_path -to [get_registers {*reset_sync:*|sync[*]}]
set_false_path -to [get_ports {w_cperst_n s_cperst_n}]
