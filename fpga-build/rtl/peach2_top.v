// PEACH2 board image, top level: four PCIe Gen2 x8 hard IPs around peach2_core.
//
// Ports: N is the host edge connector (endpoint), E and W are cable ports
// (endpoint and root port), S is a cable port whose role is chosen when the image
// is built (S_ROLE_RC). The core takes the same choice as its s_role_rc input.
//
// Clocks: the core and all four hard IPs' application interfaces (pld_clk) run on
// N's core_clk_out, 250 MHz. This assumes all four hard IPs share one reference
// clock source (see the README). clk_100 from an on-board oscillator feeds a PLL
// for the transceivers' 50 MHz reconfiguration clock and 125 MHz fixedclk_serdes.
//
// Resets: PERST# from the host resets the board. Endpoint ports also follow their
// own PERST# (the edge connector's for N, the cable's for E and for S as an
// endpoint); root ports drive the cable's PERST# and release it with the core.
module peach2_top #(
    parameter S_ROLE_RC = 0
) (
    input  wire       clk_100,
    input  wire       pcie_perst_n,
    input  wire       n_refclk,
    input  wire       e_refclk,
    input  wire       w_refclk,
    input  wire       s_refclk,
    input  wire [7:0] n_rx,
    output wire [7:0] n_tx,
    input  wire [7:0] e_rx,
    output wire [7:0] e_tx,
    input  wire [7:0] w_rx,
    output wire [7:0] w_tx,
    input  wire [7:0] s_rx,
    output wire [7:0] s_tx,
    input  wire       e_cperst_n,
    output wire       w_cperst_n,
    inout  wire       s_cperst_n
);
    wire clk;
    wire reconfig_clk;
    wire fixedclk;
    wire aux_locked;
    wire n_pll_locked;
    wire core_rst;

    peach2_aux_pll aux_pll (
        .areset(1'b0), .inclk0(clk_100), .c0(reconfig_clk), .c1(fixedclk), .locked(aux_locked)
    );

    reset_sync #(.STAGES(3)) core_reset (
        .clk(clk), .arst_n(pcie_perst_n && aux_locked && n_pll_locked), .rst(core_rst)
    );

    // Root ports release the cable's PERST# with the core; S drives it only as a root port.
    wire board_npor = pcie_perst_n && aux_locked;
    assign w_cperst_n = !core_rst;
    assign s_cperst_n = (S_ROLE_RC != 0) ? !core_rst : 1'bz;
    wire s_npor = (S_ROLE_RC != 0) ? board_npor : (s_cperst_n && aux_locked);

    // Core-side streams, index 0..3 = N, E, W, S.
    wire [127:0] rx_data [0:3];
    wire [3:0]   rx_valid, rx_ready, rx_sop, rx_eop;
    wire [1:0]   rx_empty [0:3];
    wire [127:0] tx_data [0:3];
    wire [3:0]   tx_valid, tx_ready, tx_sop, tx_eop;
    wire [1:0]   tx_empty [0:3];
    wire [3:0]   link_up;

    peach2_port #(.ROLE_RC(0)) port_n (
        .clk(clk), .core_rst(core_rst), .npor(board_npor), .refclk(n_refclk),
        .reconfig_clk(reconfig_clk), .fixedclk(fixedclk), .reconfig_rst(!aux_locked),
        .rx_in(n_rx), .tx_out(n_tx), .core_clk_out(clk), .pll_locked(n_pll_locked), .link_up(link_up[0]),
        .rx_data(rx_data[0]), .rx_valid(rx_valid[0]), .rx_ready(rx_ready[0]),
        .rx_sop(rx_sop[0]), .rx_eop(rx_eop[0]), .rx_empty(rx_empty[0]),
        .tx_data(tx_data[0]), .tx_valid(tx_valid[0]), .tx_ready(tx_ready[0]),
        .tx_sop(tx_sop[0]), .tx_eop(tx_eop[0]), .tx_empty(tx_empty[0])
    );

    peach2_port #(.ROLE_RC(0)) port_e (
        .clk(clk), .core_rst(core_rst), .npor(e_cperst_n && aux_locked), .refclk(e_refclk),
        .reconfig_clk(reconfig_clk), .fixedclk(fixedclk), .reconfig_rst(!aux_locked),
        .rx_in(e_rx), .tx_out(e_tx), .core_clk_out(), .pll_locked(), .link_up(link_up[1]),
        .rx_data(rx_data[1]), .rx_valid(rx_valid[1]), .rx_ready(rx_ready[1]),
        .rx_sop(rx_sop[1]), .rx_eop(rx_eop[1]), .rx_empty(rx_empty[1]),
        .tx_data(tx_data[1]), .tx_valid(tx_valid[1]), .tx_ready(tx_ready[1]),
        .tx_sop(tx_sop[1]), .tx_eop(tx_eop[1]), .tx_empty(tx_empty[1])
    );

    peach2_port #(.ROLE_RC(1)) port_w (
        .clk(clk), .core_rst(core_rst), .npor(board_npor), .refclk(w_refclk),
        .reconfig_clk(reconfig_clk), .fixedclk(fixedclk), .reconfig_rst(!aux_locked),
        .rx_in(w_rx), .tx_out(w_tx), .core_clk_out(), .pll_locked(), .link_up(link_up[2]),
        .rx_data(rx_data[2]), .rx_valid(rx_valid[2]), .rx_ready(rx_ready[2]),
        .rx_sop(rx_sop[2]), .rx_eop(rx_eop[2]), .rx_empty(rx_empty[2]),
        .tx_data(tx_data[2]), .tx_valid(tx_valid[2]), .tx_ready(tx_ready[2]),
        .tx_sop(tx_sop[2]), .tx_eop(tx_eop[2]), .tx_empty(tx_empty[2])
    );

    peach2_port #(.ROLE_RC(S_ROLE_RC)) port_s (
        .clk(clk), .core_rst(core_rst), .npor(s_npor), .refclk(s_refclk),
        .reconfig_clk(reconfig_clk), .fixedclk(fixedclk), .reconfig_rst(!aux_locked),
        .rx_in(s_rx), .tx_out(s_tx), .core_clk_out(), .pll_locked(), .link_up(link_up[3]),
        .rx_data(rx_data[3]), .rx_valid(rx_valid[3]), .rx_ready(rx_ready[3]),
        .rx_sop(rx_sop[3]), .rx_eop(rx_eop[3]), .rx_empty(rx_empty[3]),
        .tx_data(tx_data[3]), .tx_valid(tx_valid[3]), .tx_ready(tx_ready[3]),
        .tx_sop(tx_sop[3]), .tx_eop(tx_eop[3]), .tx_empty(tx_empty[3])
    );

    peach2_core core (
        .clk(clk), .rst(core_rst),
        .n_rx_data(rx_data[0]), .n_rx_valid(rx_valid[0]), .n_rx_ready(rx_ready[0]),
        .n_rx_sop(rx_sop[0]), .n_rx_eop(rx_eop[0]), .n_rx_empty(rx_empty[0]),
        .n_tx_data(tx_data[0]), .n_tx_valid(tx_valid[0]), .n_tx_ready(tx_ready[0]),
        .n_tx_sop(tx_sop[0]), .n_tx_eop(tx_eop[0]), .n_tx_empty(tx_empty[0]),
        .n_link_up(link_up[0]),
        .e_rx_data(rx_data[1]), .e_rx_valid(rx_valid[1]), .e_rx_ready(rx_ready[1]),
        .e_rx_sop(rx_sop[1]), .e_rx_eop(rx_eop[1]), .e_rx_empty(rx_empty[1]),
        .e_tx_data(tx_data[1]), .e_tx_valid(tx_valid[1]), .e_tx_ready(tx_ready[1]),
        .e_tx_sop(tx_sop[1]), .e_tx_eop(tx_eop[1]), .e_tx_empty(tx_empty[1]),
        .e_link_up(link_up[1]),
        .w_rx_data(rx_data[2]), .w_rx_valid(rx_valid[2]), .w_rx_ready(rx_ready[2]),
        .w_rx_sop(rx_sop[2]), .w_rx_eop(rx_eop[2]), .w_rx_empty(rx_empty[2]),
        .w_tx_data(tx_data[2]), .w_tx_valid(tx_valid[2]), .w_tx_ready(tx_ready[2]),
        .w_tx_sop(tx_sop[2]), .w_tx_eop(tx_eop[2]), .w_tx_empty(tx_empty[2]),
        .w_link_up(link_up[2]),
        .s_rx_data(rx_data[3]), .s_rx_valid(rx_valid[3]), .s_rx_ready(rx_ready[3]),
        .s_rx_sop(rx_sop[3]), .s_rx_eop(rx_eop[3]), .s_rx_empty(rx_empty[3]),
        .s_tx_data(tx_data[3]), .s_tx_valid(tx_valid[3]), .s_tx_ready(tx_ready[3]),
        .s_tx_sop(tx_sop[3]), .s_tx_eop(tx_eop[3]), .s_tx_empty(tx_empty[3]),
        .s_link_up(link_up[3]),
        .s_role_rc(S_ROLE_RC != 0)
    );
endmodule
