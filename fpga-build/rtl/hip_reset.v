// Reset and link state of one hard IP, in the core clock domain (its pld_clk).
//
// Modelled on the application reset of Altera's hard IP example designs
// (altpcierd_hip_rs): npor is synchronised to pld_clk; dlup_exit, hotrst_exit and
// l2_exit are active-low one-cycle pulses from the hard IP (data link left DL_Up,
// hot reset, exit from L2); any of them restarts a hold of 2**HOLD_LOG2 cycles
// during which the hard IP's srst/crst and this port's adapters are in reset.
//
// link_up is the core's DL_Up: set when the LTSSM reaches L0 (ltssm = 5'b01111)
// after the hold, cleared by a reset or any exit pulse. It stays set through
// recovery and low-power link states, which keep DL_Up in PCIe.
module hip_reset #(
    parameter HOLD_LOG2 = 10
) (
    input  wire       clk,
    input  wire       npor,
    input  wire       dlup_exit,
    input  wire       hotrst_exit,
    input  wire       l2_exit,
    input  wire [4:0] ltssm,
    output reg        hip_rst,
    output reg        link_up
);
    localparam [4:0] LTSSM_L0 = 5'b01111;

    wire por;
    reset_sync #(.STAGES(3)) sync_npor (.clk(clk), .arst_n(npor), .rst(por));

    reg [4:0] ltssm_r;
    reg       exit_r;
    reg [HOLD_LOG2:0] hold;
    always @(posedge clk) begin
        ltssm_r <= ltssm;
        exit_r <= !dlup_exit || !hotrst_exit || !l2_exit;
        if (por || exit_r) begin
            hold <= {HOLD_LOG2 + 1{1'b0}};
            hip_rst <= 1'b1;
            link_up <= 1'b0;
        end else begin
            if (!hold[HOLD_LOG2]) hold <= hold + 1'b1;
            hip_rst <= !hold[HOLD_LOG2];
            if (hold[HOLD_LOG2] && ltssm_r == LTSSM_L0) link_up <= 1'b1;
        end
    end
endmodule
