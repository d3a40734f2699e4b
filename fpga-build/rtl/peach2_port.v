// One PCIe port of the board: a Stratix IV GX hard IP (Gen2 x8, Avalon-ST 128-bit)
// in the role ROLE_RC selects, its transceiver reconfiguration controller, its
// reset, and the two adapters between the hard IP's Avalon-ST interface and the
// core's beat format.
//
// The role is a property of the generated IP variant (peach2_hip_rc or
// peach2_hip_ep) and cannot change at run time, so it is a build-time parameter.
module peach2_port #(
    parameter ROLE_RC = 0,
    // The hard IP variant forwards the ECRC digest to the application.
    parameter ECRC_FORWARD = 0,
    parameter RX_READY_LATENCY = 3,
    parameter TX_READY_LATENCY = 2,
    // Value of the hard IP's test_in bus (see the README).
    parameter [39:0] TEST_IN = 40'h00_0000_00a8
) (
    input  wire         clk,            // core clock, also this hard IP's pld_clk
    input  wire         core_rst,       // core reset, synchronous to clk
    input  wire         npor,           // this hard IP's power-on reset, active low, asynchronous
    input  wire         refclk,         // 100 MHz PCIe reference clock
    input  wire         reconfig_clk,   // 50 MHz: reconfiguration and calibration clock
    input  wire         fixedclk,       // 125 MHz: fixedclk_serdes
    input  wire         reconfig_rst,   // offset cancellation restarts while high
    input  wire [7:0]   rx_in,
    output wire [7:0]   tx_out,
    output wire         core_clk_out,   // the hard IP's 250 MHz application clock
    output wire         pll_locked,     // the hard IP's transceiver PLL is locked
    output wire         link_up,
    // Core side, pcie_model::beats format.
    output wire [127:0] rx_data,
    output wire         rx_valid,
    input  wire         rx_ready,
    output wire         rx_sop,
    output wire         rx_eop,
    output wire [1:0]   rx_empty,
    input  wire [127:0] tx_data,
    input  wire         tx_valid,
    output wire         tx_ready,
    input  wire         tx_sop,
    input  wire         tx_eop,
    input  wire [1:0]   tx_empty
);
    wire         clk500;
    wire         dlup_exit;
    wire         hotrst_exit;
    wire         l2_exit;
    wire [4:0]   ltssm;
    wire [33:0]  reconfig_fromgxb;
    wire [3:0]   reconfig_togxb;
    wire         reconfig_busy;
    wire [127:0] hip_rx_data;
    wire         hip_rx_valid;
    wire         hip_rx_ready;
    wire         hip_rx_sop;
    wire         hip_rx_eop;
    wire [127:0] hip_tx_data;
    wire         hip_tx_valid;
    wire         hip_tx_ready;
    wire         hip_tx_sop;
    wire         hip_tx_eop;
    wire         hip_tx_empty;
    wire         hip_rst;

    generate
        if (ROLE_RC != 0) begin : g_rc
            peach2_hip_rc hip (
`include "hip_connections.vh"
            );
        end else begin : g_ep
            peach2_hip_ep hip (
`include "hip_connections.vh"
            );
        end
    endgenerate

    altpcie_reconfig_4sgx reconfig (
        .reconfig_clk(reconfig_clk),
        .offset_cancellation_reset(reconfig_rst),
        .logical_channel_address(3'd0),
        .read(1'b0),
        .write_all(1'b0),
        .rx_eqctrl(4'd0),
        .rx_eqdcgain(3'd0),
        .tx_preemp_0t(5'd0),
        .tx_preemp_1t(5'd0),
        .tx_preemp_2t(5'd0),
        .tx_vodctrl(3'd0),
        .reconfig_fromgxb(reconfig_fromgxb),
        .reconfig_togxb(reconfig_togxb),
        .busy(reconfig_busy),
        .data_valid(),
        .rx_eqctrl_out(),
        .rx_eqdcgain_out(),
        .tx_preemp_0t_out(),
        .tx_preemp_1t_out(),
        .tx_preemp_2t_out(),
        .tx_vodctrl_out()
    );

    // As Altera's example designs do: the reset logic waits for the hard IP's PLL.
    hip_reset reset (
        .clk(clk),
        .npor(npor && pll_locked),
        .dlup_exit(dlup_exit),
        .hotrst_exit(hotrst_exit),
        .l2_exit(l2_exit),
        .ltssm(ltssm),
        .hip_rst(hip_rst),
        .link_up(link_up)
    );
    wire port_rst = core_rst || hip_rst;

    hip_rx_adapter #(.ECRC_FORWARD(ECRC_FORWARD), .READY_LATENCY(RX_READY_LATENCY)) rx (
        .clk(clk), .rst(port_rst),
        .rx_st_data(hip_rx_data), .rx_st_valid(hip_rx_valid), .rx_st_ready(hip_rx_ready),
        .rx_st_sop(hip_rx_sop), .rx_st_eop(hip_rx_eop),
        .rx_data(rx_data), .rx_valid(rx_valid), .rx_ready(rx_ready),
        .rx_sop(rx_sop), .rx_eop(rx_eop), .rx_empty(rx_empty)
    );

    hip_tx_adapter #(.READY_LATENCY(TX_READY_LATENCY)) tx (
        .clk(clk), .rst(port_rst),
        .tx_data(tx_data), .tx_valid(tx_valid), .tx_ready(tx_ready),
        .tx_sop(tx_sop), .tx_eop(tx_eop), .tx_empty(tx_empty),
        .tx_st_data(hip_tx_data), .tx_st_valid(hip_tx_valid), .tx_st_ready(hip_tx_ready),
        .tx_st_sop(hip_tx_sop), .tx_st_eop(hip_tx_eop), .tx_st_empty(hip_tx_empty)
    );
endmodule
